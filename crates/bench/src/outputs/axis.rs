//! A figure's axes: the range a panel shows and the ticks it labels. Pure functions of the
//! data's range, so that what a reader sees on an axis is tested without drawing it.

/// Ticks of a log axis over `[lo, hi]`, always a regular sequence and always at least two:
/// 1, 2 and 5 times the powers of ten in it; the powers of ten alone when that gives more than
/// ten (every k-th power over many decades); every digit times them when 1-2-5 gives fewer than
/// three; evenly spaced linear ticks when even the digits give fewer than three (a range well
/// inside one decade, such as 15 to 16.5).
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let ticks = |mantissas: &[f64]| -> Vec<f64> {
        let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        (first..=last)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| *v >= lo && *v <= hi)
            .collect()
    };
    let one_two_five = ticks(&[1.0, 2.0, 5.0]);
    if one_two_five.len() > 10 {
        let decades = ticks(&[1.0]);
        let step = decades.len().div_ceil(10);
        return decades.into_iter().step_by(step).collect();
    }
    if one_two_five.len() >= 3 {
        return one_two_five;
    }
    let digits = ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    if digits.len() >= 3 {
        return digits;
    }
    linear_ticks(lo, hi)
}

/// About five evenly spaced ticks in `[lo, hi]`, at a multiple of a step of 1, 2 or 5 times a
/// power of ten.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo < hi) || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let rough = (hi - lo) / 5.0;
    let exponent = rough.log10().floor() as i32;
    let power = 10f64.powi(exponent);
    let mantissa = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| m * power >= rough)
        .unwrap_or(10.0);
    let step = mantissa * power;
    // k times the mantissa, then scaled by the power (divided by its inverse below 1), so that a
    // tick is the nearest double to its decimal value: 0.6, not 3 x 0.2 = 0.6000000000000001.
    let at = |k: i64| {
        if exponent >= 0 {
            k as f64 * mantissa * power
        } else {
            k as f64 * mantissa / 10f64.powi(-exponent)
        }
    };
    ((lo / step).ceil() as i64..=(hi / step).floor() as i64)
        .map(at)
        .collect()
}

/// The data range widened by 5% each side (multiplicatively on a log axis); a single value gets
/// a range around it.
pub(super) fn padded(values: &[f64], log: bool) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        let (lo, hi) = (lo.max(f64::MIN_POSITIVE), hi.max(f64::MIN_POSITIVE));
        if lo == hi {
            return (lo / 2.0, hi * 2.0);
        }
        let pad = (hi / lo).powf(0.05);
        return (lo / pad, hi * pad);
    }
    if lo == hi {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// A tick's label: enough decimals to tell ticks apart, an exponent outside [1e-3, 1e5).
pub(super) fn tick(v: &f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{v:.0e}")
    } else {
        // Enough decimals to tell ticks apart, trailing zeros trimmed.
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_get_regular_labelled_ticks_over_any_range() {
        assert_eq!(
            log_ticks(1.0, 1000.0),
            vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
        assert_eq!(log_ticks(90.0, 1100.0), vec![100.0, 200.0, 500.0, 1000.0]);
        // Inside one decade: every digit.
        assert_eq!(
            log_ticks(1500.0, 9000.0),
            vec![2000.0, 3000.0, 4000.0, 5000.0, 6000.0, 7000.0, 8000.0, 9000.0]
        );
        // rff-vs-nystroem's training time, 0.01 to 200 s: 1-2-5 gives 14 ticks, which thinned
        // by two read 0.01, 0.05, 0.2, 1, 5, 20, 100; the decades are regular.
        assert_eq!(log_ticks(0.015, 250.0), vec![0.1, 1.0, 10.0, 100.0]);
        assert_eq!(log_ticks(0.009, 210.0), vec![0.01, 0.1, 1.0, 10.0, 100.0]);
        // Many decades: every k-th power, at most ten.
        let wide = log_ticks(1e-12, 1e12);
        assert!(wide.len() <= 10 && wide.len() >= 5, "{wide:?}");
        // random-features-fig3-size's test error, 15 to 16.5 %: no digit tick inside, so linear
        // ticks, each labelled.
        let narrow = log_ticks(15.0, 16.5);
        assert_eq!(narrow, vec![15.0, 15.5, 16.0, 16.5]);
        assert!(narrow.iter().all(|v| !tick(v).is_empty()));
        assert_eq!(linear_ticks(0.0, 1.0), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    }
}
