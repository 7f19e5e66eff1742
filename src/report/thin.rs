//! Thinning of long polylines for the figures: the Ramer-Douglas-Peucker
//! simplification (Douglas & Peucker 1973), which drops every point that
//! lies within a tolerance of the line through the points kept around it.
//! Applied in pixel coordinates with a tolerance below a pixel, it leaves the
//! drawn shape unchanged while a ROC or precision-recall curve of 200,000
//! scores shrinks from one point per score to a few hundred.

/// Most points a drawn line keeps ([`thin_to`]).
pub const MAX_LINE_POINTS: usize = 2000;

/// The points of `points` kept by Ramer-Douglas-Peucker with `tolerance`
/// (in the points' units): the first and last always, and every point
/// farther than `tolerance` from the segment between the points kept on
/// either side of it.
///
/// ```
/// use rarity::report::thin::thin;
/// let line: Vec<(f64, f64)> = (0..=100).map(|i| (i as f64, 2.0 * i as f64)).collect();
/// assert_eq!(thin(&line, 0.1), vec![(0.0, 0.0), (100.0, 200.0)]);
/// let corner = [(0.0, 0.0), (0.0, 5.0), (0.0, 10.0), (5.0, 10.0), (10.0, 10.0)];
/// assert_eq!(thin(&corner, 0.1), vec![(0.0, 0.0), (0.0, 10.0), (10.0, 10.0)]);
/// ```
pub fn thin(points: &[(f64, f64)], tolerance: f64) -> Vec<(f64, f64)> {
    let n = points.len();
    if n < 3 {
        return points.to_vec();
    }
    let mut keep = vec![false; n];
    keep[0] = true;
    keep[n - 1] = true;
    // Explicit stack of (first, last) spans: no recursion depth limit.
    let mut spans = vec![(0, n - 1)];
    while let Some((a, b)) = spans.pop() {
        if b <= a + 1 {
            continue;
        }
        let (far, dist) = (a + 1..b)
            .map(|i| (i, distance(points[i], points[a], points[b])))
            .fold((a, -1.0), |best, c| if c.1 > best.1 { c } else { best });
        if dist > tolerance {
            keep[far] = true;
            spans.push((a, far));
            spans.push((far, b));
        }
    }
    points
        .iter()
        .zip(&keep)
        .filter_map(|(&p, &k)| k.then_some(p))
        .collect()
}

/// `points` thinned to at most [`MAX_LINE_POINTS`] when longer: first with
/// a quarter-pixel tolerance (pixel coordinates), doubled until it fits.
pub fn thin_to(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if points.len() <= MAX_LINE_POINTS {
        return points;
    }
    let mut tolerance = 0.25;
    loop {
        let kept = thin(&points, tolerance);
        if kept.len() <= MAX_LINE_POINTS {
            return kept;
        }
        tolerance *= 2.0;
    }
}

/// The distance from `p` to the segment from `a` to `b`.
fn distance(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (qx, qy) = (a.0 + t * dx - p.0, a.1 + t * dy - p.1);
    (qx * qx + qy * qy).sqrt()
}
