//! Exit codes, so scripts can branch on how a question ended without parsing output.

/// Answered (or, for other commands, success).
pub const ANSWERED: u8 = 0;
/// Anything went wrong: unreachable server, refused request, bad input.
pub const ERROR: u8 = 1;
// 2 is clap's usage error.
/// The reviewer declined the question.
pub const DECLINED: u8 = 10;
/// The question's deadline passed unanswered.
pub const EXPIRED: u8 = 11;
/// The question was withdrawn (by this asker, e.g. Ctrl-C, or another).
pub const CANCELLED: u8 = 12;
/// The ask is parked (async, or `inbox park`): nothing is answered yet; the park was printed
/// and its resume comes back through `inbox park wait` / `inbox park claim`. Also what
/// `inbox park wait --timeout` returns when the park is still parked.
pub const PARKED: u8 = 13;
/// `inbox agui run`: the run failed (`RUN_ERROR`, a protocol error, an interrupt the server
/// refused, or the agent unreachable after every retry).
pub const RUN_FAILED: u8 = 14;
/// `inbox agui run`: the agent finished the run as cancelled.
pub const RUN_CANCELLED: u8 = 15;
