//! ISO 8601 dates and date-times as seconds since 1970-01-01 UTC, the
//! values a time column (`--cv time(col=...)`) is ordered by when it holds
//! text: `2024-01-31`, `2024-01-31T08:15`, `2024-01-31 08:15:30.250`,
//! with an optional zone `Z`, `+01:00`, `-0530` or `+01` (none: UTC).
//! Days are counted in the proleptic Gregorian calendar (a year is a leap
//! year when divisible by 4, except centuries not divisible by 400).

/// A time key's value (a number, or an ISO 8601 date or date-time as
/// [`seconds`]); else the message that says what `text` should have been.
pub(crate) fn time_value(text: &[u8], decimal: u8) -> Result<f64, String> {
    if let Ok(Some(v)) = super::number::number(text, decimal) {
        return Ok(v);
    }
    seconds(text).ok_or_else(|| {
        format!(
            "'{}' is neither a number nor an ISO 8601 date or date-time (2024-01-31, \
             2024-01-31T08:15:30, 2024-01-31 08:15:30+01:00)",
            super::quote::quoted(text)
        )
    })
}

/// Seconds since 1970-01-01T00:00:00Z of an ISO 8601 date or date-time;
/// `None` if `text` is not one (or names a day the calendar lacks).
pub(crate) fn seconds(text: &[u8]) -> Option<f64> {
    let mut p = Cursor { s: text, i: 0 };
    let year = i64::from(p.digits(4)?);
    p.byte(b'-')?;
    let month = p.digits(2)?;
    p.byte(b'-')?;
    let day = p.digits(2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let mut secs = days_since_epoch(year, month, day) as f64 * 86_400.0;
    if p.done() {
        return Some(secs);
    }
    if !matches!(p.next()?, b'T' | b't' | b' ') {
        return None;
    }
    let hour = p.digits(2)?;
    p.byte(b':')?;
    let minute = p.digits(2)?;
    let mut second = 0.0;
    if p.peek() == Some(b':') {
        p.i += 1;
        second = f64::from(p.digits(2)?);
        if matches!(p.peek(), Some(b'.' | b',')) {
            p.i += 1;
            let start = p.i;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.i += 1;
            }
            let frac = &p.s[start..p.i];
            if frac.is_empty() {
                return None;
            }
            let mut f = 0.0;
            let mut scale = 0.1;
            for &d in frac.iter().take(9) {
                f += f64::from(d - b'0') * scale;
                scale /= 10.0;
            }
            second += f;
        }
    }
    if hour > 23 || minute > 59 || second >= 60.0 {
        return None;
    }
    secs += f64::from(hour * 3600 + minute * 60) + second;
    match p.peek() {
        None => Some(secs),
        Some(b'Z' | b'z') => {
            p.i += 1;
            p.done().then_some(secs)
        }
        Some(sign @ (b'+' | b'-')) => {
            p.i += 1;
            let oh = p.digits(2)?;
            let om = if p.done() {
                0
            } else {
                if p.peek() == Some(b':') {
                    p.i += 1;
                }
                p.digits(2)?
            };
            if !p.done() || oh > 23 || om > 59 {
                return None;
            }
            let offset = f64::from(oh * 3600 + om * 60);
            // Local time = UTC + offset.
            Some(if sign == b'+' {
                secs - offset
            } else {
                secs + offset
            })
        }
        Some(_) => None,
    }
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    fn done(&self) -> bool {
        self.i == self.s.len()
    }

    fn byte(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    /// Exactly `n` ASCII digits as a number.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let d = self.s.get(self.i..self.i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(d.iter().fold(0, |v, &b| v * 10 + u32::from(b - b'0')))
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given day (negative before it): whole
/// 400-year cycles of 146,097 days, then years, then months.
fn days_since_epoch(year: i64, month: u32, day: u32) -> i64 {
    let before_year = |y: i64| {
        // Days from 0000-01-01 to y-01-01.
        let y1 = y - 1;
        365 * y + y1.div_euclid(4) - y1.div_euclid(100) + y1.div_euclid(400) + 1
    };
    let in_year: i64 = (1..month)
        .map(|m| i64::from(days_in_month(year, m)))
        .sum::<i64>()
        + i64::from(day)
        - 1;
    before_year(year) - before_year(1970) + in_year
}

#[cfg(test)]
mod tests {
    use super::seconds;

    fn s(t: &str) -> Option<f64> {
        seconds(t.as_bytes())
    }

    /// Values checked against Python's `datetime.fromisoformat(t).timestamp()`
    /// (UTC when no zone is given).
    #[test]
    fn dates_and_times_as_seconds_since_1970() {
        assert_eq!(s("1970-01-01"), Some(0.0));
        assert_eq!(s("1970-01-02"), Some(86_400.0));
        assert_eq!(s("1969-12-31"), Some(-86_400.0));
        assert_eq!(s("2000-02-29"), Some(951_782_400.0));
        assert_eq!(s("2024-01-31"), Some(1_706_659_200.0));
        assert_eq!(s("2024-03-01"), Some(1_709_251_200.0));
        assert_eq!(s("1900-03-01"), Some(-2_203_891_200.0));
        assert_eq!(s("0001-01-01"), Some(-62_135_596_800.0));
        assert_eq!(s("9999-12-31"), Some(253_402_214_400.0));
        assert_eq!(s("2024-01-31T08:15"), Some(1_706_688_900.0));
        assert_eq!(s("2024-01-31 08:15:30"), Some(1_706_688_930.0));
        assert_eq!(s("2024-01-31t08:15:30Z"), Some(1_706_688_930.0));
        assert_eq!(s("2024-01-31T08:15:30.250"), Some(1_706_688_930.25));
        assert_eq!(s("2024-01-31T08:15:30,5"), Some(1_706_688_930.5));
        assert_eq!(s("2024-01-31T08:15:30+01:00"), Some(1_706_685_330.0));
        assert_eq!(s("2024-01-31T08:15:30-0530"), Some(1_706_708_730.0));
        assert_eq!(s("2024-01-31T08:15:30+01"), Some(1_706_685_330.0));
    }

    #[test]
    fn what_is_not_a_date_is_none() {
        for t in [
            "",
            "2024",
            "2024-1-31",
            "2024-13-01",
            "2024-00-10",
            "2023-02-29",
            "2024-04-31",
            "2024-01-00",
            "31/01/2024",
            "2024-01-31T",
            "2024-01-31T24:00",
            "2024-01-31T08:60",
            "2024-01-31T08:15:60",
            "2024-01-31T08:15:30.",
            "2024-01-31T08:15Q",
            "2024-01-31T08:15+1",
            "2024-01-31T08:15+01:0",
            "2024-01-31T08:15+24:00",
            "2024-01-31x",
            "２０２４-01-31",
        ] {
            assert_eq!(s(t), None, "{t}");
        }
    }
}
