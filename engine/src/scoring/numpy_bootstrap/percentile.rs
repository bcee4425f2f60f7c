//! `np.percentile` with numpy's default `'linear'` method, in numpy's arithmetic. Two textbook
//! forms of linear interpolation (`a + (b - a) t` and `a (1 - t) + b t`) differ in the last bits;
//! numpy (`_lerp` in `lib/_function_base_impl.py`) uses the first below `t = 0.5` and
//! `b - (b - a)(1 - t)` from there up, and the position is `(n - 1) * (percent / 100)`.

use crate::error::{Error, Result};
use crate::stable_sort;

/// `np.percentile(values, percents)`: one value per percent, each in `[0, 100]`. Any NaN among
/// the values makes every result NaN, as in numpy.
pub fn percentiles(values: &[f64], percents: &[f64]) -> Result<Vec<f64>> {
    if values.is_empty() {
        return Err(Error::setting("values", "none", "at least one value"));
    }
    if let Some(bad) = percents
        .iter()
        .find(|percent| !(0.0..=100.0).contains(*percent))
    {
        return Err(Error::setting("percentile", bad, "0 to 100"));
    }
    if values.iter().any(|value| value.is_nan()) {
        return Ok(vec![f64::NAN; percents.len()]);
    }
    let mut sorted = values.to_vec();
    stable_sort::by(&mut sorted, f64::total_cmp);
    Ok(percents
        .iter()
        .map(|percent| interpolate(&sorted, percent / 100.0))
        .collect())
}

/// The value at quantile `fraction` of sorted values.
fn interpolate(sorted: &[f64], fraction: f64) -> f64 {
    let last = sorted.len() - 1;
    let position = last as f64 * fraction;
    if position >= last as f64 {
        // numpy marks the lower index -1 here, so its weight is `position + 1`; the two
        // neighbours are both the last value, and only the weight's side of 0.5 matters.
        return lerp(sorted[last], sorted[last], position + 1.0);
    }
    let below = position.floor();
    let index = below as usize;
    lerp(sorted[index], sorted[index + 1], position - below)
}

/// numpy's `_lerp(a, b, t)`.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let difference = b - a;
    if t >= 0.5 {
        b - difference * (1.0 - t)
    } else {
        a + difference * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_between_neighbours_of_the_sorted_values() {
        let values = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(
            percentiles(&values, &[0.0, 50.0, 100.0, 25.0]).unwrap(),
            [1.0, 2.5, 4.0, 1.75]
        );
        assert_eq!(percentiles(&[7.0], &[2.5, 97.5]).unwrap(), [7.0, 7.0]);
    }

    #[test]
    fn the_upper_half_interpolates_down_from_the_right_neighbour() {
        // t = 0.75: b - (b - a) * 0.25, which differs from a + (b - a) * 0.75 here.
        let (a, b) = (0.84, 1.48);
        assert_eq!(lerp(a, b, 0.75), 1.32);
        assert_eq!(a + (b - a) * 0.75, 1.3199999999999998);
    }

    #[test]
    fn bad_input_is_an_error_or_nan_as_in_numpy() {
        assert!(percentiles(&[], &[50.0]).is_err());
        assert!(percentiles(&[1.0], &[100.5]).is_err());
        assert!(percentiles(&[1.0], &[f64::NAN]).is_err());
        assert!(percentiles(&[1.0, f64::NAN], &[50.0]).unwrap()[0].is_nan());
    }
}
