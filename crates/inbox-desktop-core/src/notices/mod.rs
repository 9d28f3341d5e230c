//! Desktop notifications, decided: the [`planner`] says what to show and withdraw, [`markup`]
//! makes untrusted text safe for a notification body. Showing them on the session bus is the
//! app's (`src-tauri/src/notifications`).

pub mod markup;
pub mod planner;

pub use planner::{
    Attention, Notice, NoticeAction, NoticeChoice, NoticeKey, NoticePlanner, QuestionRef, ShownIds,
};
