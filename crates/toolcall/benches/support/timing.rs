//! The timing loop: warm-up, batches sized to a fixed sample time, the median of the samples.
//!
//! Why this and not criterion or divan: see docs/PERFORMANCE.md ("Method"). In short, the issue
//! asks for one table of ratios from one run, and both report each benchmark on its own.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Every benchmark once, no warm-up: that it runs and gives the right answer.
    Smoke,
    /// Warm-up and samples.
    Full,
}

/// One benchmark's result.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    /// Median time of one iteration.
    pub(crate) median: Duration,
    /// The relative spread of the samples: (p75 − p25) / median.
    pub(crate) spread: f64,
}

impl Timing {
    /// Seconds per iteration.
    pub(crate) fn secs(&self) -> f64 {
        self.median.as_secs_f64()
    }

    /// Throughput in MB/s (10^6 bytes) for `bytes` per iteration.
    pub(crate) fn mbps(&self, bytes: usize) -> f64 {
        bytes as f64 / self.secs().max(1e-12) / 1e6
    }
}

/// The timing loop's settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timer {
    pub(crate) mode: Mode,
    /// Warm-up: run until this much time has passed (at least once).
    warm_up: Duration,
    /// Target length of one sample (a batch of iterations).
    sample: Duration,
    /// Samples to take at most, and at least.
    max_samples: usize,
    min_samples: usize,
    /// Stop taking samples after this much time once `min_samples` are in.
    budget: Duration,
}

impl Timer {
    pub(crate) fn new(mode: Mode) -> Self {
        Timer {
            mode,
            warm_up: Duration::from_millis(150),
            sample: Duration::from_millis(15),
            max_samples: 31,
            min_samples: 5,
            budget: Duration::from_millis(1200),
        }
    }

    /// Times `f`, whose result is dropped inside the timed region (freeing is part of the cost).
    pub(crate) fn run<R>(&self, mut f: impl FnMut() -> R) -> Timing {
        if self.mode == Mode::Smoke {
            let t = Instant::now();
            black_box(f());
            return Timing {
                median: t.elapsed(),
                spread: 0.0,
            };
        }
        // Warm-up, which also estimates the time of one iteration.
        let started = Instant::now();
        let mut runs = 0u32;
        while runs == 0 || started.elapsed() < self.warm_up {
            black_box(f());
            runs += 1;
        }
        let estimate = started.elapsed().as_secs_f64() / f64::from(runs);
        let batch = ((self.sample.as_secs_f64() / estimate).floor() as u64).max(1);

        let mut samples = Vec::with_capacity(self.max_samples);
        let started = Instant::now();
        while samples.len() < self.max_samples
            && (samples.len() < self.min_samples || started.elapsed() < self.budget)
        {
            let t = Instant::now();
            for _ in 0..batch {
                black_box(f());
            }
            samples.push(t.elapsed().as_secs_f64() / batch as f64);
        }
        samples.sort_by(f64::total_cmp);
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        let median = at(0.5);
        Timing {
            median: Duration::from_secs_f64(median),
            spread: (at(0.75) - at(0.25)) / median,
        }
    }
}
