//! Self-contained SVG plots, written by hand (no plotting crate, no font):
//! every figure is one `<svg>` element with a `viewBox`, generic
//! `sans-serif` text, and coordinates rounded to 0.1 px. Non-finite values
//! are skipped (a line breaks at a `NaN`), never written.
//!
//! The kinds the reports need:
//! - [`LinePlot`]: curves with a legend and an optional diagonal: ROC and
//!   precision-recall curves and reliability diagrams (Dal Pozzolo et al.
//!   2015, Figs. 3-6; Collell et al. 2018, Fig. 2: `p`, `p_s` and `p'`
//!   against `x`);
//! - [`BoxPlot`]: one horizontal box per group (a metric over folds per
//!   strategy, or per undersampling rate beta); whiskers reach the furthest
//!   value within 1.5 IQR, values beyond are drawn as points;
//! - [`CdDiagram`]: the critical-difference diagram of Demšar (2006, Fig. 1):
//!   mean ranks on an axis, the Nemenyi critical difference as a bar, and a
//!   thick line joining each maximal group of methods whose mean ranks
//!   differ by at most the critical difference;
//! - [`GroupedBars`]: horizontal bars, one group per strategy and one bar
//!   per series (recall of each class).

use std::fmt::Write;

use super::escape;
use super::thin::thin_to;

/// Series colours (distinguishable, colour-blind friendly order).
const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22",
];

/// The colour of series `i`.
fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Rough width in px of `text` at font size `size` (no font is loaded, so
/// layouts reserve room from the character count).
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.58
}

/// A number for an SVG attribute: rounded to 0.1 px, non-finite as 0.
fn n(v: f64) -> String {
    if !v.is_finite() {
        return "0".to_string();
    }
    let r = (v * 10.0).round() / 10.0;
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{r}")
    }
}

/// A linear map from data values in `[lo, hi]` to pixels in `[a, b]`.
#[derive(Debug, Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    a: f64,
    b: f64,
}

impl Scale {
    fn new(lo: f64, hi: f64, a: f64, b: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        };
        Scale { lo, hi, a, b }
    }

    /// The pixel of `v`, clamped to the axis.
    fn map(&self, v: f64) -> f64 {
        let t = ((v - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        self.a + t * (self.b - self.a)
    }
}

/// "Nice" tick values (steps of 1, 2 or 5 times a power of ten) covering
/// `[lo, hi]` with about `count` ticks.
fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    if !(hi > lo) || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let raw = (hi - lo) / count.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Tick label text: as few decimals as the step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let s = format!("{v:.decimals$}");
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// The finite range of some values, widened when empty or a single point.
fn range_of(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    }
}

/// An SVG document being written.
struct Canvas {
    out: String,
}

impl Canvas {
    fn new(width: f64, height: f64, title: &str) -> Self {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
             font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>{t}</title>\n\
             <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n",
            w = n(width),
            h = n(height),
            t = escape(title)
        );
        let mut c = Canvas { out };
        c.text(width / 2.0, 18.0, title, "middle", 14.0, "bold");
        c
    }

    /// A solid vertical segment at `x`, from `y - half` to `y + half`.
    fn tick(&mut self, x: f64, y: f64, half: f64, stroke: &str, width: f64) {
        self.line((x, y - half), (x, y + half), stroke, width, false);
    }

    /// A line from `a` to `b` (pixels).
    fn line(&mut self, a: (f64, f64), b: (f64, f64), stroke: &str, width: f64, dash: bool) {
        let ((x1, y1), (x2, y2)) = (a, b);
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{}\"{}/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            n(width),
            if dash {
                " stroke-dasharray=\"4 3\""
            } else {
                ""
            }
        );
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str) {
        self.rect_painted(x, y, w, h, &format!("fill=\"{fill}\" stroke=\"{stroke}\""));
    }

    /// A rectangle with the given paint attributes.
    fn rect_painted(&mut self, x: f64, y: f64, w: f64, h: f64, paint: &str) {
        let _ = writeln!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {paint}/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    fn circle(&mut self, x: f64, y: f64, r: f64, fill: &str) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\"/>",
            n(x),
            n(y),
            n(r)
        );
    }

    /// A box filled with a light tint of `colour` and outlined in it.
    fn rect_tinted(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str) {
        let paint = format!("fill=\"{colour}\" fill-opacity=\"0.25\" stroke=\"{colour}\"");
        self.rect_painted(x, y, w, h, &paint);
    }

    /// A circle with a tooltip (an SVG `<title>`).
    fn circle_titled(&mut self, x: f64, y: f64, r: f64, fill: &str, title: &str) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" fill-opacity=\"0.75\"><title>{}</title></circle>",
            n(x),
            n(y),
            n(r),
            escape(title)
        );
    }

    fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, dash: bool) {
        if points.len() < 2 {
            return;
        }
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{},{}", n(*x), n(*y)))
            .collect();
        let _ = writeln!(
            self.out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.8\"{}/>",
            pts.join(" "),
            if dash {
                " stroke-dasharray=\"5 3\""
            } else {
                ""
            }
        );
    }

    fn text(&mut self, x: f64, y: f64, text: &str, anchor: &str, size: f64, weight: &str) {
        let _ = writeln!(
            self.out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" font-size=\"{}\" font-weight=\"{weight}\">{}</text>",
            n(x),
            n(y),
            n(size),
            escape(text)
        );
    }

    fn vertical_text(&mut self, x: f64, y: f64, text: &str) {
        let _ = writeln!(
            self.out,
            "<text x=\"0\" y=\"0\" text-anchor=\"middle\" transform=\"translate({},{}) rotate(-90)\">{}</text>",
            n(x),
            n(y),
            escape(text)
        );
    }

    /// A legend, one entry per line, starting at `(x, y)`.
    fn legend(&mut self, x: f64, y: f64, entries: &[(String, &str, bool)]) {
        for (i, (name, col, dash)) in entries.iter().enumerate() {
            let yy = y + i as f64 * 16.0;
            self.line((x, yy - 4.0), (x + 22.0, yy - 4.0), col, 2.5, *dash);
            self.text(x + 28.0, yy, name, "start", 11.0, "normal");
        }
    }

    fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// Draws the frame of a plot area and its x axis: grid, ticks and label.
fn x_axis(c: &mut Canvas, x: &Scale, top: f64, bottom: f64, label: &str) {
    c.rect(x.a, top, x.b - x.a, bottom - top, "none", "#444");
    let xt = ticks(x.lo, x.hi, 5);
    let step = if xt.len() > 1 { xt[1] - xt[0] } else { 1.0 };
    for v in &xt {
        let px = x.map(*v);
        c.line((px, top), (px, bottom), "#e5e5e5", 1.0, false);
        c.line((px, bottom), (px, bottom + 4.0), "#444", 1.0, false);
        c.text(
            px,
            bottom + 16.0,
            &tick_label(*v, step),
            "middle",
            11.0,
            "normal",
        );
    }
    c.text(
        (x.a + x.b) / 2.0,
        bottom + 32.0,
        label,
        "middle",
        12.0,
        "normal",
    );
}

/// Draws the y axis of a plot area: grid, ticks and label.
fn y_axis(c: &mut Canvas, y: &Scale, left: f64, right: f64, label: &str) {
    let yt = ticks(y.lo, y.hi, 5);
    let step = if yt.len() > 1 { yt[1] - yt[0] } else { 1.0 };
    for v in &yt {
        let py = y.map(*v);
        c.line((left, py), (right, py), "#e5e5e5", 1.0, false);
        c.line((left - 4.0, py), (left, py), "#444", 1.0, false);
        c.text(
            left - 6.0,
            py + 4.0,
            &tick_label(*v, step),
            "end",
            11.0,
            "normal",
        );
    }
    c.vertical_text(14.0, (y.a + y.b) / 2.0, label);
}

/// One curve of a [`LinePlot`].
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// The points, in drawing order; a non-finite coordinate breaks the line.
    pub points: Vec<(f64, f64)>,
    /// Also mark each point with a dot (reliability diagrams).
    pub markers: bool,
    /// A weight per point (e.g. the rows of a reliability bin): each marker's
    /// area is proportional to its weight (the largest weight of the plot
    /// gets the largest dot) and its tooltip tells the weight. Empty: plain
    /// dots.
    pub weights: Vec<f64>,
    /// A fixed colour (so that a quantity keeps its colour in every figure);
    /// `None`: the palette's colour of the series' position.
    pub colour: Option<&'static str>,
}

impl Series {
    /// A plain line through `x` and `y` (paired up to the shorter).
    ///
    /// ```
    /// let s = rarity::report::svg::Series::line("roc", &[0.0, 1.0], &[0.0, 1.0]);
    /// assert_eq!(s.points, vec![(0.0, 0.0), (1.0, 1.0)]);
    /// ```
    pub fn line(name: &str, x: &[f64], y: &[f64]) -> Self {
        Series {
            name: name.to_string(),
            points: x.iter().copied().zip(y.iter().copied()).collect(),
            markers: false,
            weights: Vec::new(),
            colour: None,
        }
    }

    /// The same series with a dot on each point.
    pub fn with_markers(mut self) -> Self {
        self.markers = true;
        self
    }

    /// The same series with a dot on each point sized by `weights`.
    pub fn with_weighted_markers(mut self, weights: &[f64]) -> Self {
        self.markers = true;
        self.weights = weights.to_vec();
        self
    }

    /// The same series in a fixed colour.
    pub fn with_colour(mut self, colour: &'static str) -> Self {
        self.colour = Some(colour);
        self
    }
}

/// Curves against a common x axis, with a legend under the plot.
///
/// ```
/// use rarity::report::svg::{LinePlot, Series};
/// let mut p = LinePlot::new("ROC", "false positive rate", "true positive rate");
/// p.x_range = Some((0.0, 1.0));
/// p.y_range = Some((0.0, 1.0));
/// p.diagonal = Some("chance".into());
/// p.series.push(Series::line("model", &[0.0, 0.2, 1.0], &[0.0, 0.8, 1.0]));
/// let svg = p.render();
/// assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    /// Title above the plot.
    pub title: String,
    /// X-axis label.
    pub x_label: String,
    /// Y-axis label.
    pub y_label: String,
    /// Fixed x range (default: the data's).
    pub x_range: Option<(f64, f64)>,
    /// Fixed y range (default: the data's).
    pub y_range: Option<(f64, f64)>,
    /// Draw the dashed line `y = x` with this legend text (ROC chance,
    /// perfect calibration).
    pub diagonal: Option<String>,
    /// Dashed horizontal reference lines `(legend text, y)` (e.g. the
    /// positive rate as a PR baseline).
    pub hlines: Vec<(String, f64)>,
    /// The curves.
    pub series: Vec<Series>,
}

impl LinePlot {
    /// An empty plot with a title and axis labels.
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Self {
        LinePlot {
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            x_range: None,
            y_range: None,
            diagonal: None,
            hlines: Vec::new(),
            series: Vec::new(),
        }
    }

    /// The SVG text.
    pub fn render(&self) -> String {
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let (x0, x1) = self.x_range.unwrap_or_else(|| range_of(pts().map(|p| p.0)));
        let (y0, y1) = self
            .y_range
            .unwrap_or_else(|| range_of(pts().map(|p| p.1).chain(self.hlines.iter().map(|h| h.1))));
        let n_legend = self.series.len() + self.hlines.len() + usize::from(self.diagonal.is_some());
        let (w, plot_h) = (480.0, 300.0);
        let (left, top) = (60.0, 32.0);
        let right = w - 20.0;
        let bottom = top + plot_h;
        let h = bottom + 44.0 + 16.0 * n_legend as f64;
        let legend_w = self
            .series
            .iter()
            .map(|s| s.name.as_str())
            .chain(self.hlines.iter().map(|h| h.0.as_str()))
            .chain(self.diagonal.as_deref())
            .map(|s| text_width(s, 11.0) + 50.0)
            .fold(w, f64::max);
        let mut c = Canvas::new(legend_w, h, &self.title);
        let x = Scale::new(x0, x1, left, right);
        let y = Scale::new(y0, y1, bottom, top);
        x_axis(&mut c, &x, top, bottom, &self.x_label);
        y_axis(&mut c, &y, left, right, &self.y_label);
        let mut legend = Vec::new();
        if let Some(d) = &self.diagonal {
            let lo = x.lo.max(y.lo);
            let hi = x.hi.min(y.hi);
            if hi > lo {
                c.line(
                    (x.map(lo), y.map(lo)),
                    (x.map(hi), y.map(hi)),
                    "#888",
                    1.2,
                    true,
                );
            }
            legend.push((d.clone(), "#888", true));
        }
        for (i, (name, v)) in self.hlines.iter().enumerate() {
            let col = colour(PALETTE.len() - 1 - i);
            if v.is_finite() {
                c.line((x.a, y.map(*v)), (x.b, y.map(*v)), col, 1.2, true);
            }
            legend.push((name.clone(), col, true));
        }
        let max_weight = self
            .series
            .iter()
            .flat_map(|s| s.weights.iter().copied())
            .filter(|w| w.is_finite())
            .fold(0.0, f64::max);
        for (i, s) in self.series.iter().enumerate() {
            let col = s.colour.unwrap_or_else(|| colour(i));
            let mut run: Vec<(f64, f64)> = Vec::new();
            for &(px, py) in &s.points {
                if px.is_finite() && py.is_finite() {
                    run.push((x.map(px), y.map(py)));
                } else {
                    c.polyline(&thin_to(std::mem::take(&mut run)), col, false);
                }
            }
            c.polyline(&thin_to(run), col, false);
            if s.markers {
                for (j, &(px, py)) in s.points.iter().enumerate() {
                    if !(px.is_finite() && py.is_finite()) {
                        continue;
                    }
                    match s.weights.get(j) {
                        Some(&w) if max_weight > 0.0 && w.is_finite() => {
                            // Area proportional to the weight, 1.5 to 9 px radius.
                            let r = 1.5 + 7.5 * (w.max(0.0) / max_weight).sqrt();
                            let tip = format!("{}: n = {w}", s.name);
                            c.circle_titled(x.map(px), y.map(py), r, col, &tip);
                        }
                        _ => c.circle(x.map(px), y.map(py), 3.0, col),
                    }
                }
            }
            legend.push((s.name.clone(), col, false));
        }
        if self.series.iter().all(|s| s.points.is_empty()) {
            c.text(
                (left + right) / 2.0,
                (top + bottom) / 2.0,
                "no data",
                "middle",
                12.0,
                "normal",
            );
        }
        c.legend(left, bottom + 56.0, &legend);
        c.finish()
    }
}

/// Quartiles by linear interpolation (NumPy's default) of sorted values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Horizontal box plots, one per group, on a shared value axis.
///
/// ```
/// use rarity::report::svg::BoxPlot;
/// let mut b = BoxPlot::new("AP over folds", "average precision");
/// b.groups.push(("beta=0.1".into(), vec![0.6, 0.62, 0.7, f64::NAN]));
/// b.groups.push(("beta=1".into(), vec![0.5, 0.55]));
/// let svg = b.render();
/// assert!(svg.contains("beta=0.1") && !svg.contains("NaN"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BoxPlot {
    /// Title above the plot.
    pub title: String,
    /// Label of the value axis.
    pub value_label: String,
    /// `(group name, values)`; non-finite values are ignored.
    pub groups: Vec<(String, Vec<f64>)>,
    /// A fixed colour per group (so that a quantity keeps its colour in
    /// every figure); groups beyond it are drawn in the first palette
    /// colour.
    pub colours: Vec<&'static str>,
}

impl BoxPlot {
    /// An empty box plot.
    pub fn new(title: &str, value_label: &str) -> Self {
        BoxPlot {
            title: title.to_string(),
            value_label: value_label.to_string(),
            groups: Vec::new(),
            colours: Vec::new(),
        }
    }

    /// The SVG text.
    pub fn render(&self) -> String {
        let label_w = self
            .groups
            .iter()
            .map(|g| text_width(&g.0, 11.0))
            .fold(40.0, f64::max)
            + 16.0;
        let band = 26.0;
        let (top, plot_w) = (32.0, 360.0);
        let left = label_w;
        let right = left + plot_w;
        let bottom = top + band * self.groups.len().max(1) as f64;
        let (w, h) = (right + 24.0, bottom + 44.0);
        let mut c = Canvas::new(w, h, &self.title);
        let (lo, hi) = range_of(self.groups.iter().flat_map(|g| g.1.iter().copied()));
        let pad = (hi - lo) * 0.05;
        let x = Scale::new(lo - pad, hi + pad, left, right);
        x_axis(&mut c, &x, top, bottom, &self.value_label);
        for (i, (name, values)) in self.groups.iter().enumerate() {
            let mid = top + band * (i as f64 + 0.5);
            c.text(left - 8.0, mid + 4.0, name, "end", 11.0, "normal");
            let mut v: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            if v.is_empty() {
                continue;
            }
            v.sort_by(f64::total_cmp);
            let (q1, med, q3) = (quantile(&v, 0.25), quantile(&v, 0.5), quantile(&v, 0.75));
            let iqr = q3 - q1;
            let inside = |x: &&f64| **x >= q1 - 1.5 * iqr && **x <= q3 + 1.5 * iqr;
            let lo_w = v.iter().find(inside).copied().unwrap_or(q1);
            let hi_w = v.iter().rev().find(inside).copied().unwrap_or(q3);
            let col = self.colours.get(i).copied().unwrap_or_else(|| colour(0));
            c.line((x.map(lo_w), mid), (x.map(q1), mid), "#444", 1.0, false);
            c.line((x.map(q3), mid), (x.map(hi_w), mid), "#444", 1.0, false);
            for wv in [lo_w, hi_w] {
                c.tick(x.map(wv), mid, 5.0, "#444", 1.0);
            }
            c.rect_tinted(x.map(q1), mid - 8.0, x.map(q3) - x.map(q1), 16.0, col);
            c.tick(x.map(med), mid, 8.0, "#08306b", 2.0);
            for o in v.iter().filter(|x| !inside(x)) {
                c.circle(x.map(*o), mid, 2.5, "#444");
            }
        }
        c.finish()
    }
}

/// Demšar's critical-difference diagram of mean ranks (rank 1, the best, on
/// the left).
///
/// ```
/// use rarity::report::svg::CdDiagram;
/// let d = CdDiagram {
///     title: "Nemenyi, alpha 0.05".into(),
///     names: vec!["a".into(), "b".into(), "c".into()],
///     mean_ranks: vec![1.2, 2.0, 2.8],
///     critical_difference: 1.0,
/// };
/// assert_eq!(d.groups(), vec![(0, 1), (1, 2)]);
/// assert!(d.render().contains("CD = 1.00"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CdDiagram {
    /// Title above the diagram.
    pub title: String,
    /// Method names.
    pub names: Vec<String>,
    /// Mean rank of each method (1 = best).
    pub mean_ranks: Vec<f64>,
    /// The Nemenyi critical difference.
    pub critical_difference: f64,
}

impl CdDiagram {
    /// Method indices sorted by mean rank (best first; non-finite last).
    fn order(&self) -> Vec<usize> {
        let mut o: Vec<usize> = (0..self.names.len().min(self.mean_ranks.len())).collect();
        let key = |i: usize| {
            let r = self.mean_ranks[i];
            if r.is_finite() {
                r
            } else {
                f64::INFINITY
            }
        };
        o.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
        o
    }

    /// The maximal groups of not-significantly-different methods, as
    /// `(first, last)` positions in rank order (best first); single methods
    /// are not groups.
    pub fn groups(&self) -> Vec<(usize, usize)> {
        let o = self.order();
        let r: Vec<f64> = o.iter().map(|&i| self.mean_ranks[i]).collect();
        let mut out: Vec<(usize, usize)> = Vec::new();
        for i in 0..r.len() {
            if !r[i].is_finite() {
                break;
            }
            let mut j = i;
            while j + 1 < r.len() && r[j + 1] - r[i] <= self.critical_difference {
                j += 1;
            }
            if j > i && out.last().is_none_or(|&(_, e)| j > e) {
                out.push((i, j));
            }
        }
        out
    }

    /// The SVG text.
    pub fn render(&self) -> String {
        let o = self.order();
        let k = o.len();
        // Labels read "NAME (1.23)" or "NAME (no rank)".
        let label_w = self
            .names
            .iter()
            .map(|s| text_width(&format!("{s} (no rank)"), 11.0))
            .fold(40.0, f64::max)
            + 24.0;
        let axis_w = (80.0 * (k.max(2) - 1) as f64).clamp(240.0, 560.0);
        // Short names (e.g. `#1`): widen the margins so the title fits.
        let label_w = label_w.max((text_width(&self.title, 14.0) + 24.0 - axis_w) / 2.0);
        let (left, right) = (label_w, label_w + axis_w);
        let axis_y = 70.0;
        let groups = self.groups();
        let group_h = 10.0 + 7.0 * groups.len() as f64;
        let half = k.div_ceil(2);
        let rows = half.max(k - half);
        let h = axis_y + group_h + 18.0 * rows as f64 + 24.0;
        let w = right + label_w;
        let mut c = Canvas::new(w, h, &self.title);
        let x = Scale::new(1.0, k.max(2) as f64, left, right);
        c.line((left, axis_y), (right, axis_y), "#222", 1.2, false);
        for t in 1..=k.max(2) {
            let px = x.map(t as f64);
            c.line((px, axis_y - 5.0), (px, axis_y), "#222", 1.0, false);
            c.text(px, axis_y - 9.0, &t.to_string(), "middle", 11.0, "normal");
        }
        let cd = self.critical_difference;
        if cd.is_finite() && cd > 0.0 {
            let end = x.map(1.0 + cd);
            c.line((left, 36.0), (end, 36.0), "#222", 2.0, false);
            c.line((left, 31.0), (left, 41.0), "#222", 1.0, false);
            c.line((end, 31.0), (end, 41.0), "#222", 1.0, false);
            c.text(
                (left + end) / 2.0,
                30.0,
                &format!("CD = {cd:.2}"),
                "middle",
                11.0,
                "normal",
            );
        }
        for (g, &(a, b)) in groups.iter().enumerate() {
            let y = axis_y + 8.0 + 7.0 * g as f64;
            let (ra, rb) = (self.mean_ranks[o[a]], self.mean_ranks[o[b]]);
            c.line(
                (x.map(ra) - 3.0, y),
                (x.map(rb) + 3.0, y),
                "#222",
                3.5,
                false,
            );
        }
        for (pos, &i) in o.iter().enumerate() {
            let r = self.mean_ranks[i];
            let label = if r.is_finite() {
                format!("{} ({r:.2})", self.names[i])
            } else {
                format!("{} (no rank)", self.names[i])
            };
            let px = x.map(if r.is_finite() { r } else { k as f64 });
            let (row, left_side) = if pos < half {
                (pos, true)
            } else {
                (k - 1 - pos, false)
            };
            let y = axis_y + group_h + 18.0 * (row as f64 + 1.0);
            let col = colour(pos);
            c.line((px, axis_y), (px, y), col, 1.0, false);
            if left_side {
                c.line((left - 6.0, y), (px, y), col, 1.0, false);
                c.text(left - 10.0, y + 4.0, &label, "end", 11.0, "normal");
            } else {
                c.line((px, y), (right + 6.0, y), col, 1.0, false);
                c.text(right + 10.0, y + 4.0, &label, "start", 11.0, "normal");
            }
        }
        c.finish()
    }
}

/// Horizontal grouped bars: for each group (a strategy), one bar per series
/// (a class), values on a shared axis.
///
/// ```
/// use rarity::report::svg::GroupedBars;
/// let b = GroupedBars {
///     title: "recall per class".into(),
///     value_label: "recall".into(),
///     groups: vec!["forest".into()],
///     series: vec!["neg".into(), "pos".into()],
///     values: vec![vec![0.9, f64::NAN]],
///     range: Some((0.0, 1.0)),
/// };
/// let svg = b.render();
/// assert!(svg.contains("n/a") && !svg.contains("NaN"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GroupedBars {
    /// Title above the plot.
    pub title: String,
    /// Label of the value axis.
    pub value_label: String,
    /// Group names (one band each).
    pub groups: Vec<String>,
    /// Series names (one bar per group each; in the legend).
    pub series: Vec<String>,
    /// `values[group][series]`; a non-finite value draws "n/a".
    pub values: Vec<Vec<f64>>,
    /// Fixed value range (default: from 0 or the minimum to the maximum).
    pub range: Option<(f64, f64)>,
}

impl GroupedBars {
    /// The SVG text.
    pub fn render(&self) -> String {
        let label_w = self
            .groups
            .iter()
            .map(|g| text_width(g, 11.0))
            .fold(40.0, f64::max)
            + 16.0;
        let bar = 10.0;
        let band = bar * self.series.len().max(1) as f64 + 10.0;
        let (top, left) = (32.0, label_w);
        let right = left + 360.0;
        let bottom = top + band * self.groups.len().max(1) as f64;
        let h = bottom + 44.0 + 16.0 * self.series.len() as f64;
        let mut c = Canvas::new(right + 24.0, h, &self.title);
        let (lo, hi) = self.range.unwrap_or_else(|| {
            let (a, b) = range_of(self.values.iter().flatten().copied());
            (a.min(0.0), b)
        });
        let x = Scale::new(lo, hi, left, right);
        x_axis(&mut c, &x, top, bottom, &self.value_label);
        for (g, name) in self.groups.iter().enumerate() {
            let y0 = top + band * g as f64 + 5.0;
            c.text(left - 8.0, y0 + band / 2.0, name, "end", 11.0, "normal");
            for s in 0..self.series.len() {
                let v = self
                    .values
                    .get(g)
                    .and_then(|r| r.get(s))
                    .copied()
                    .unwrap_or(f64::NAN);
                let yb = y0 + bar * s as f64;
                if v.is_finite() {
                    let (a, b) = (x.map(lo.max(0.0).min(hi)), x.map(v));
                    c.rect(a.min(b), yb, (b - a).abs(), bar - 1.0, colour(s), "none");
                } else {
                    c.text(left + 4.0, yb + bar - 1.5, "n/a", "start", 9.0, "normal");
                }
            }
        }
        let legend: Vec<(String, &str, bool)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), colour(i), false))
            .collect();
        c.legend(left, bottom + 56.0, &legend);
        c.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that every tag is closed in order and that no attribute holds
    /// a non-finite number; returns the viewBox size.
    fn well_formed(svg: &str) -> (f64, f64) {
        assert!(!svg.contains("NaN") && !svg.contains("inf\""), "{svg}");
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').expect("unclosed tag") + start;
            let tag = &rest[start + 1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap().to_string());
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        let vb = svg.split("viewBox=\"").nth(1).unwrap();
        let dims: Vec<f64> = vb
            .split('"')
            .next()
            .unwrap()
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        (dims[2], dims[3])
    }

    /// Every coordinate attribute lies inside the viewBox.
    fn inside(svg: &str) {
        let (w, h) = well_formed(svg);
        for attr in ["x", "x1", "x2", "cx", "y", "y1", "y2", "cy"] {
            let key = format!(" {attr}=\"");
            for part in svg.split(&key).skip(1) {
                let v: f64 = part.split('"').next().unwrap().parse().unwrap();
                let limit = if attr.contains('x') { w } else { h };
                assert!((0.0..=limit).contains(&v), "{attr}={v} outside 0..{limit}");
            }
        }
        for part in svg.split(" points=\"").skip(1) {
            for pt in part.split('"').next().unwrap().split(' ') {
                let (x, y) = pt.split_once(',').unwrap();
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                assert!((0.0..=w).contains(&x) && (0.0..=h).contains(&y), "{pt}");
            }
        }
    }

    #[test]
    fn line_plot_maps_values_into_the_viewbox_and_skips_nan() {
        let mut p = LinePlot::new("a <b> & c", "x", "y");
        p.diagonal = Some("perfect".into());
        p.hlines.push(("base".into(), 0.3));
        p.series.push(Series::line(
            "s1",
            &[0.0, 0.5, f64::NAN, 0.7, 1.0],
            &[0.0, 0.2, 0.5, 0.9, 1e9],
        ));
        p.series
            .push(Series::line("s2", &[-3.0, 2.0], &[f64::INFINITY, -1.0]).with_markers());
        let svg = p.render();
        inside(&svg);
        assert!(svg.contains("a &lt;b&gt; &amp; c"));
        assert_eq!(svg.matches("<polyline").count(), 2);
    }

    #[test]
    fn weighted_markers_grow_with_their_weight_and_keep_a_fixed_colour() {
        let mut p = LinePlot::new("reliability", "predicted", "observed");
        p.series.push(
            Series::line("m", &[0.1, 0.5, 0.9], &[0.1, 0.4, 0.8])
                .with_weighted_markers(&[1.0, 100.0, 25.0])
                .with_colour("#123456"),
        );
        let svg = p.render();
        inside(&svg);
        let radii: Vec<f64> = svg
            .split(" r=\"")
            .skip(1)
            .map(|r| r.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(radii.len(), 3);
        assert!(radii[0] < radii[2] && radii[2] < radii[1], "{radii:?}");
        assert!(svg.contains("<title>m: n = 100</title>"));
        assert!(svg.contains("stroke=\"#123456\"") && !svg.contains(colour(0)));
    }

    #[test]
    fn empty_and_all_nan_plots_are_still_valid() {
        let mut p = LinePlot::new("t", "x", "y");
        p.series.push(Series::line("nan", &[f64::NAN], &[f64::NAN]));
        inside(&p.render());
        let mut b = BoxPlot::new("t", "v");
        b.groups.push(("g".into(), vec![f64::NAN]));
        inside(&b.render());
        inside(&BoxPlot::new("t", "v").render());
        let d = CdDiagram {
            title: "t".into(),
            names: vec!["a".into(), "b".into()],
            mean_ranks: vec![f64::NAN, 1.0],
            critical_difference: f64::NAN,
        };
        inside(&d.render());
        let g = GroupedBars {
            title: "t".into(),
            value_label: "v".into(),
            groups: vec![],
            series: vec![],
            values: vec![],
            range: None,
        };
        inside(&g.render());
    }

    #[test]
    fn box_plot_quartiles_and_outliers() {
        let mut b = BoxPlot::new("t", "v");
        b.groups
            .push(("g".into(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 100.0]));
        let svg = b.render();
        inside(&svg);
        texts_fit(&svg);
        // The outlier is drawn as a point.
        assert_eq!(svg.matches("<circle").count(), 1);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
    }

    #[test]
    fn cd_diagram_groups_are_maximal() {
        let d = CdDiagram {
            title: "cd".into(),
            names: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
            mean_ranks: vec![4.5, 1.0, 1.5, 2.2, 4.8],
            critical_difference: 1.3,
        };
        // Rank order: b(1.0) c(1.5) d(2.2) a(4.5) e(4.8).
        assert_eq!(d.groups(), vec![(0, 2), (3, 4)]);
        let svg = d.render();
        inside(&svg);
        assert!(svg.contains("b (1.00)") && svg.contains("CD = 1.30"));
    }

    /// Asserts that every text's estimated extent lies inside the viewBox
    /// width.
    fn texts_fit(svg: &str) {
        let (w, _) = well_formed(svg);
        for part in svg.split("<text x=\"").skip(1) {
            let x: f64 = part.split('"').next().unwrap().parse().unwrap();
            let anchor = part.split("text-anchor=\"").nth(1).unwrap();
            let size: f64 = part
                .split("font-size=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let content = part.split('>').nth(1).unwrap().split('<').next().unwrap();
            let tw = text_width(content, size);
            let (a, b) = match anchor.split('"').next().unwrap() {
                "end" => (x - tw, x),
                "middle" => (x - tw / 2.0, x + tw / 2.0),
                _ => (x, x + tw),
            };
            assert!(a >= 0.0 && b <= w, "'{content}' spans {a}..{b}, width {w}");
        }
    }

    #[test]
    fn cd_diagram_fits_its_title_and_labels() {
        let d = CdDiagram {
            title: "Mean ranks on average_precision (Nemenyi, alpha 0.05)".into(),
            names: ["#1", "#2", "#3"].map(String::from).to_vec(),
            mean_ranks: vec![1.5, 2.0, 2.5],
            critical_difference: 1.9,
        };
        texts_fit(&d.render());
        let d = CdDiagram {
            title: "macro_f1".into(),
            names: ["PT_MA", "PT_F1", "EB", "RB", "SMOTE", "Platt"]
                .map(String::from)
                .to_vec(),
            mean_ranks: vec![3.3, 2.15, 4.8, 4.1, 1.8, f64::NAN],
            critical_difference: 2.38,
        };
        texts_fit(&d.render());
    }

    #[test]
    fn grouped_bars_in_the_viewbox() {
        let g = GroupedBars {
            title: "recall".into(),
            value_label: "recall".into(),
            groups: vec!["s1".into(), "s2".into()],
            series: vec!["0".into(), "1".into()],
            values: vec![vec![0.9, 0.4], vec![1.0, f64::NAN]],
            range: Some((0.0, 1.0)),
        };
        let svg = g.render();
        inside(&svg);
        texts_fit(&svg);
        assert!(svg.contains("n/a"));
    }

    #[test]
    fn ticks_are_nice() {
        assert_eq!(
            ticks(0.0, 1.0, 5),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(tick_label(0.6000000000000001, 0.2), "0.6");
        assert_eq!(ticks(1.0, 1.0, 5), vec![1.0]);
    }
}
