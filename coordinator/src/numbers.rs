//! Numbers as people read them, in messages, the display, logs and `leaper status`: durations
//! (`1h02m03s`), bytes (`592.0 MiB`), counts with their noun (`2 passes`), digits in groups
//! (`23,428,645`) and short magnitudes (`2.1M`).
//!
//! A leaf: it imports nothing of the crate, so that every module may borrow from it (the plan,
//! status, the memory checks, the display) without importing what draws the display.

use std::time::Duration;

/// `1h02m03s`, `4m05s`, `6s`.
pub fn format_duration(duration: Duration) -> String {
    let s = duration.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, min, sec) => format!("{min}m{sec:02}s"),
        (h, min, sec) => format!("{h}h{min:02}m{sec:02}s"),
    }
}

pub use leaper_core::units::{bytes, grouped};

/// `1 pass`, `2 passes`: a number and its noun, singular for one.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `950`, `12.3k`, `2.1M`, `4.0G`.
pub fn compact(x: f64) -> String {
    match x {
        x if x < 1e3 => format!("{x:.0}"),
        x if x < 1e6 => format!("{:.1}k", x / 1e3),
        x if x < 1e9 => format!("{:.1}M", x / 1e6),
        x => format!("{:.1}G", x / 1e9),
    }
}

/// A count: exact below a million, three significant digits and a power of ten above.
pub fn approx(n: f64) -> String {
    if n < 1e6 {
        grouped(n.round() as u64)
    } else {
        format!("{n:.2e}")
    }
}

/// Seconds as the largest fitting unit (tenths under 10 s).
pub fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 9.95 => format!("{s:.1} s"),
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s if s < 2.0 * 31_557_600.0 => format!("{:.1} days", s / 86_400.0),
        s => format!("{:.1} years", s / 31_557_600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(format_duration(Duration::from_secs(3723)), "1h02m03s");
        assert_eq!(format_duration(Duration::from_secs(245)), "4m05s");
        assert_eq!(format_duration(Duration::from_secs(6)), "6s");
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(592 << 20), "592.0 MiB");
        assert_eq!(grouped(23_428_645), "23,428,645");
        assert_eq!(grouped(645), "645");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(compact(950.0), "950");
        assert_eq!(compact(2_100_000.0), "2.1M");
        assert_eq!((counted(1, "pass", "passes"), counted(2, "pass", "passes")), ("1 pass".into(), "2 passes".into()));
    }
}
