//! `leaper plan --link RATE`: the speed of each worker's network link, written as `tc` writes a
//! tbf rate (`1Gbit`, `100Mbit`, `10Mbit`, `2.5gbit`: bits a second, case aside), so that the
//! figure a plan prices is the one `scripts/netns-cluster start N --rate R` limits links to.
//! Bytes a second (`tc`'s `bps`, `mbps`) are refused by name rather than read as bits.

use std::fmt;

/// The default link: 1 Gbit/s, an assumption (a cluster's usual Ethernet), never measured as
/// such; what was measured is how the shuffle scales with it (docs/PERFORMANCE-LOG.md, "The
/// shuffle measured on links of 1 Gbit/s, 100 Mbit/s and 10 Mbit/s").
pub const DEFAULT_LINK: LinkRate = LinkRate { bits_per_second: 1e9 };

/// A link's speed, each way (a worker sends and receives at once at this rate).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LinkRate {
    pub bits_per_second: f64,
}

impl LinkRate {
    /// Bytes a second each way.
    pub fn bytes_per_second(self) -> f64 {
        self.bits_per_second / 8.0
    }
}

/// `10Mbit`, `1Gbit`, `2.5Gbit` as the plan prints them.
impl fmt::Display for LinkRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.bits_per_second;
        let (value, unit) = match bits {
            b if b >= 1e12 => (b / 1e12, "Tbit"),
            b if b >= 1e9 => (b / 1e9, "Gbit"),
            b if b >= 1e6 => (b / 1e6, "Mbit"),
            b if b >= 1e3 => (b / 1e3, "Kbit"),
            b => (b, "bit"),
        };
        let text = format!("{value:.3}");
        write!(f, "{}{unit}/s", text.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// Parses `--link`: a positive number (a decimal fraction allowed) and a unit of bits a
/// second, `bit`, `kbit`, `mbit`, `gbit` or `tbit`, in any case (tc's units, SI: `1kbit` is
/// 1,000 bits a second), between 1 kbit/s and 10 Tbit/s.
pub fn parse_link(text: &str) -> Result<LinkRate, String> {
    let lower = text.trim().to_ascii_lowercase();
    let split = lower.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(lower.len());
    let (number, unit) = lower.split_at(split);
    let scale = match unit {
        "bit" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        "tbit" => 1e12,
        "bps" | "kbps" | "mbps" | "gbps" | "tbps" => {
            return Err(format!(
            "link rate \"{text}\": tc reads `{unit}` as bytes a second; write bits a second (1Gbit, 100Mbit, 10Mbit)"
        ))
        }
        "" => return Err(format!("link rate \"{text}\" has no unit: write bits a second (1Gbit, 100Mbit, 10Mbit)")),
        _ => {
            return Err(format!(
                "link rate \"{text}\": unknown unit \"{unit}\"; write bits a second with bit, kbit, mbit, gbit or \
                 tbit (1Gbit, 100Mbit, 10Mbit)"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("link rate \"{text}\": \"{number}\" is not a number (1Gbit, 100Mbit, 10Mbit)"))?;
    let bits_per_second = value * scale;
    if !(1e3..=1e13).contains(&bits_per_second) {
        return Err(format!("link rate \"{text}\": a plan prices links of 1kbit to 10Tbit"));
    }
    Ok(LinkRate { bits_per_second })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_tc_writes_them() {
        assert_eq!(parse_link("1Gbit"), Ok(LinkRate { bits_per_second: 1e9 }));
        assert_eq!(parse_link("100mbit"), Ok(LinkRate { bits_per_second: 1e8 }));
        assert_eq!(parse_link("10MBIT"), Ok(LinkRate { bits_per_second: 1e7 }));
        assert_eq!(parse_link("2.5gbit").map(|l| l.bytes_per_second()), Ok(312.5e6));
        assert_eq!(parse_link("64kbit").map(|l| l.to_string()), Ok("64Kbit/s".to_string()));
        assert_eq!(DEFAULT_LINK.to_string(), "1Gbit/s");
        assert_eq!(parse_link("2.5Gbit").unwrap().to_string(), "2.5Gbit/s");
        assert_eq!(parse_link("10Gbit").unwrap().to_string(), "10Gbit/s");
    }

    #[test]
    fn bad_rates_are_refused_by_name() {
        for (text, says) in [
            ("1Gbps", "bytes a second"),
            ("100", "no unit"),
            ("1Gb", "unknown unit \"gb\""),
            ("fast", "unknown unit"),
            ("1.2.3mbit", "not a number"),
            ("mbit", "not a number"),
            ("0mbit", "1kbit to 10Tbit"),
            ("100tbit", "1kbit to 10Tbit"),
            ("-1mbit", "unknown unit"),
        ] {
            let error = parse_link(text).unwrap_err();
            assert!(error.contains(says) && error.contains(text), "{text}: {error}");
        }
    }
}
