//! When to try again after a failure: capped exponential backoff with full jitter.
//!
//! "Full jitter" draws each delay uniformly from `[0, min(cap, base · 2^attempt)]`. Spreading
//! the retries over the whole window (rather than around its end) is what keeps a fleet of
//! clients from reconnecting in step after a server restart. The server may ask for a slower
//! pace with the SSE `retry:` field; that becomes the base, and may lift the cap too, so a
//! server that asks for patience gets it.

use std::time::Duration;

use rand::Rng;

/// The shape of the backoff: where it starts and where it stops growing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackoffPolicy {
    /// The ceiling of the first delay.
    pub base: Duration,
    /// No delay ceiling grows past this (unless the server's `retry:` asks for more).
    pub cap: Duration,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        BackoffPolicy {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
        }
    }
}

/// The failures since the last success of one connection, and the delays they earn.
#[derive(Debug, Clone)]
pub struct Backoff {
    policy: BackoffPolicy,
    /// The server's `retry:` hint, which replaces `policy.base`.
    server_retry: Option<Duration>,
    attempt: u32,
}

impl Backoff {
    pub fn new(policy: BackoffPolicy) -> Self {
        Backoff {
            policy,
            server_retry: None,
            attempt: 0,
        }
    }

    /// Failures since the last [`Backoff::reset`].
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The connection worked: the next failure starts from the base again.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    /// Honour the SSE `retry:` field (milliseconds): it becomes the base of every later delay.
    pub fn honour_server_retry(&mut self, retry: Duration) {
        self.server_retry = Some(retry);
    }

    /// The upper bound of the next delay: `min(cap, base · 2^attempt)`.
    pub fn ceiling(&self) -> Duration {
        let base = self.server_retry.unwrap_or(self.policy.base);
        // A server asking for more than our cap gets what it asked for, never less.
        let cap = self.policy.cap.max(base);
        // Past 2^20 every realistic base is far beyond the cap; stop before overflow.
        let factor = 1u32 << self.attempt.min(20);
        base.checked_mul(factor).map_or(cap, |d| d.min(cap))
    }

    /// Count a failure and draw the delay before the next try from `rng`. The random source
    /// is the caller's so this crate stays deterministic: [`crate::Session`] draws from one
    /// seeded by its driver, tests from a fixed seed.
    pub fn next_delay_with(&mut self, rng: &mut impl Rng) -> Duration {
        let ceiling = self.ceiling();
        self.attempt = self.attempt.saturating_add(1);
        let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rng.random_range(0..=millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    fn policy(base_ms: u64, cap_ms: u64) -> BackoffPolicy {
        BackoffPolicy {
            base: Duration::from_millis(base_ms),
            cap: Duration::from_millis(cap_ms),
        }
    }

    #[test]
    fn the_ceiling_doubles_from_the_base_and_stops_at_the_cap() {
        let mut b = Backoff::new(policy(500, 30_000));
        let mut rng = StdRng::seed_from_u64(1);
        let mut ceilings = Vec::new();
        for _ in 0..10 {
            ceilings.push(b.ceiling().as_millis());
            b.next_delay_with(&mut rng);
        }
        assert_eq!(
            ceilings,
            [
                500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000
            ]
        );
    }

    #[test]
    fn every_delay_lies_within_zero_and_the_ceiling() {
        let mut rng = StdRng::seed_from_u64(7);
        for attempt in 0..40 {
            let mut b = Backoff::new(policy(250, 30_000));
            for _ in 0..attempt {
                b.next_delay_with(&mut rng);
            }
            let ceiling = b.ceiling();
            let delay = b.next_delay_with(&mut rng);
            assert!(
                delay <= ceiling,
                "attempt {attempt}: {delay:?} > {ceiling:?}"
            );
            assert!(delay <= Duration::from_secs(30));
        }
    }

    #[test]
    fn jitter_is_full_spread_over_the_whole_window_not_clustered_at_its_end() {
        let mut rng = StdRng::seed_from_u64(42);
        let draws: Vec<u128> = (0..2000)
            .map(|_| {
                let mut b = Backoff::new(policy(500, 30_000));
                for _ in 0..8 {
                    b.next_delay_with(&mut rng);
                }
                // At the cap now: the window is [0, 30 s].
                b.next_delay_with(&mut rng).as_millis()
            })
            .collect();
        let below_a_tenth = draws.iter().filter(|&&d| d < 3_000).count();
        let above_nine_tenths = draws.iter().filter(|&&d| d > 27_000).count();
        let mean = draws.iter().sum::<u128>() as f64 / draws.len() as f64;
        // Uniform on [0, 30000]: about 10% in each tail and a mean near 15 s.
        assert!((120..=280).contains(&below_a_tenth), "{below_a_tenth}");
        assert!(
            (120..=280).contains(&above_nine_tenths),
            "{above_nine_tenths}"
        );
        assert!((13_500.0..16_500.0).contains(&mean), "{mean}");
        let distinct: std::collections::HashSet<_> = draws.iter().collect();
        assert!(distinct.len() > 1500, "delays are drawn, not fixed");
    }

    #[test]
    fn reset_starts_again_from_the_base() {
        let mut b = Backoff::new(policy(500, 30_000));
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..5 {
            b.next_delay_with(&mut rng);
        }
        assert_eq!(b.attempt(), 5);
        b.reset();
        assert_eq!(b.attempt(), 0);
        assert_eq!(b.ceiling(), Duration::from_millis(500));
    }

    #[test]
    fn the_servers_retry_becomes_the_base_and_may_lift_the_cap() {
        let mut b = Backoff::new(policy(500, 30_000));
        b.honour_server_retry(Duration::from_secs(5));
        let mut rng = StdRng::seed_from_u64(9);
        assert_eq!(b.ceiling(), Duration::from_secs(5));
        b.next_delay_with(&mut rng);
        assert_eq!(b.ceiling(), Duration::from_secs(10));
        for _ in 0..5 {
            b.next_delay_with(&mut rng);
        }
        assert_eq!(b.ceiling(), Duration::from_secs(30), "still capped");

        let mut patient = Backoff::new(policy(500, 30_000));
        patient.honour_server_retry(Duration::from_secs(60));
        assert_eq!(patient.ceiling(), Duration::from_secs(60));
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..20 {
            assert!(patient.next_delay_with(&mut rng) <= Duration::from_secs(60));
        }
    }

    #[test]
    fn a_huge_attempt_count_never_overflows() {
        let mut b = Backoff::new(policy(500, 30_000));
        b.attempt = u32::MAX;
        assert_eq!(b.ceiling(), Duration::from_secs(30));
        assert!(b.next_delay_with(&mut StdRng::seed_from_u64(2)) <= Duration::from_secs(30));
        assert_eq!(b.attempt(), u32::MAX);
    }
}
