//! The one least-squares fit of memory readings against steps (or time):
//! the log analysis, the web chart's trend line and the companion's growth
//! rate all read it.

/// Least-squares line and quadratic. x is centred and scaled to [−1, 1]
/// (u = (x − x_mean) / x_scale) so the normal equations stay well conditioned
/// for steps in the millions and bytes in the hundreds of billions.
pub struct Fit {
    pub x_mean: f64,
    pub x_scale: f64,
    pub x_min: f64,
    pub x_max: f64,
    pub x_last: f64,
    pub y_mean: f64,
    /// bytes per step
    pub slope: f64,
    pub line_sse: f64,
    /// y − y_mean = quad[0] + quad[1]·u + quad[2]·u²
    pub quad: [f64; 3],
    pub quad_sse: f64,
}

impl Fit {
    /// The fitted line at `x` (y_mean at the mean x, then the slope).
    pub fn line_at(&self, x: f64) -> f64 {
        self.y_mean + self.slope * (x - self.x_mean)
    }

    /// The trend curve at `x`: the quadratic when `curved`, else the line
    /// (what the log view draws over the readings).
    pub fn trend_at(&self, x: f64, curved: bool) -> f64 {
        if curved {
            self.quad_at(x)
        } else {
            self.line_at(x)
        }
    }

    /// The fit of `(x, y)` points in reading order; `None` when they sit at
    /// a single x (no trend to fit).
    pub fn new(points: &[(f64, f64)]) -> Option<Self> {
        let n = points.len() as f64;
        let x_mean = points.iter().map(|p| p.0).sum::<f64>() / n;
        let y_mean = points.iter().map(|p| p.1).sum::<f64>() / n;
        let x_min = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let x_max = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let x_scale = (x_max - x_mean).max(x_mean - x_min);
        if !(x_scale > 0.0 && x_scale.is_finite()) {
            return None;
        }
        let centred: Vec<(f64, f64)> = points
            .iter()
            .map(|p| ((p.0 - x_mean) / x_scale, p.1 - y_mean))
            .collect();
        let su2: f64 = centred.iter().map(|(u, _)| u * u).sum();
        let suy: f64 = centred.iter().map(|(u, y)| u * y).sum();
        let line_b = suy / su2;
        let line_sse = centred.iter().map(|(u, y)| (y - line_b * u).powi(2)).sum();
        let quad = solve_quadratic(&centred).unwrap_or([0.0, line_b, 0.0]);
        let quad_sse = centred
            .iter()
            .map(|(u, y)| (y - quad[0] - quad[1] * u - quad[2] * u * u).powi(2))
            .sum();
        let x_last = points.last().map_or(x_max, |p| p.0);
        Some(Self {
            x_mean,
            x_scale,
            x_min,
            x_max,
            x_last,
            y_mean,
            slope: line_b / x_scale,
            line_sse,
            quad,
            quad_sse,
        })
    }

    pub fn u(&self, x: f64) -> f64 {
        (x - self.x_mean) / self.x_scale
    }

    pub fn quad_at(&self, x: f64) -> f64 {
        let u = self.u(x);
        self.y_mean + self.quad[0] + self.quad[1] * u + self.quad[2] * u * u
    }

    pub fn quad_slope_at(&self, x: f64) -> f64 {
        (self.quad[1] + 2.0 * self.quad[2] * self.u(x)) / self.x_scale
    }
}

/// Solves the 3×3 normal equations of y = c0 + c1·u + c2·u² by Gaussian
/// elimination with partial pivoting. `None` if the readings sit at fewer than
/// three distinct steps.
fn solve_quadratic(points: &[(f64, f64)]) -> Option<[f64; 3]> {
    let mut s = [0.0f64; 5];
    let mut t = [0.0f64; 3];
    for (u, y) in points {
        let mut power = 1.0;
        for (k, slot) in s.iter_mut().enumerate() {
            *slot += power;
            if let Some(tk) = t.get_mut(k) {
                *tk += power * y;
            }
            power *= u;
        }
    }
    let [s0, s1, s2, s3, s4] = s;
    let mut m = [[s0, s1, s2, t[0]], [s1, s2, s3, t[1]], [s2, s3, s4, t[2]]];
    for col in 0..3 {
        let pivot = (col..3).max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))?;
        m.swap(col, pivot);
        // u is in [−1, 1] so the sums are O(n); a smaller pivot means the
        // distinct steps are fewer than three.
        if m[col][col].abs() < 1e-9 * s0 {
            return None;
        }
        let pivot_row = m[col];
        for row in m.iter_mut().skip(col + 1) {
            let factor = row[col] / pivot_row[col];
            for (cell, above) in row.iter_mut().zip(pivot_row).skip(col) {
                *cell -= factor * above;
            }
        }
    }
    let mut c = [0.0f64; 3];
    for row in (0..3).rev() {
        let known: f64 = (row + 1..3).map(|k| m[row][k] * c[k]).sum();
        c[row] = (m[row][3] - known) / m[row][row];
    }
    c.iter().all(|v| v.is_finite()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_and_a_parabola_are_fitted_exactly() {
        let line = Fit::new(&[(0.0, 1.0), (1.0, 1.0), (2.0, 4.0)]).expect("fits");
        assert_eq!(line.slope, 1.5);
        assert_eq!(line.line_at(1.0), 2.0);
        let parabola: Vec<(f64, f64)> = (0..6).map(|x| (f64::from(x), f64::from(x * x))).collect();
        let fit = Fit::new(&parabola).expect("fits");
        for x in [0.0, 2.5, 7.0] {
            assert!((fit.trend_at(x, true) - x * x).abs() < 1e-9, "{x}");
        }
        assert!(fit.quad_sse < 1e-9 && fit.line_sse > 1.0);
    }

    #[test]
    fn one_x_has_no_trend() {
        assert!(Fit::new(&[(0.0, 1.0)]).is_none());
        assert!(Fit::new(&[(3.0, 1.0), (3.0, 9.0)]).is_none());
        assert!(Fit::new(&[]).is_none());
    }
}
