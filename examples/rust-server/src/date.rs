//! IMF-fixdate (RFC 9110 §5.6.7) formatting and parsing.

use std::time::{SystemTime, UNIX_EPOCH};

const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

pub fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn format(secs: u64) -> String {
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{}, {:02} {} {} {:02}:{:02}:{:02} GMT",
        DAYS[(days.rem_euclid(7)) as usize],
        d,
        MONTHS[(m - 1) as usize],
        y,
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

pub fn parse(s: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(s).ok()?;
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    if s.len() != 29 || &s[3..5] != ", " || !s.ends_with(" GMT") {
        return None;
    }
    let d: u32 = s[5..7].parse().ok()?;
    let m = MONTHS.iter().position(|x| *x == &s[8..11])? as u32 + 1;
    let y: i64 = s[12..16].parse().ok()?;
    let hh: u64 = s[17..19].parse().ok()?;
    let mm: u64 = s[20..22].parse().ok()?;
    let ss: u64 = s[23..25].parse().ok()?;
    if hh > 23 || mm > 59 || ss > 60 || d == 0 || d > 31 || y < 1970 {
        return None;
    }
    let days = days_from_civil(y, m, d);
    Some(days as u64 * 86400 + hh * 3600 + mm * 60 + ss)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        assert_eq!(super::format(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(super::parse(b"Sun, 06 Nov 1994 08:49:37 GMT"), Some(784111777));
    }
}
