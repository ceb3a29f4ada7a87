//! What a request opts into (progress, log level) and `logging/setLevel`. Completion is in
//! `complete.rs`, subscriptions in `listen.rs`.

use crate::json::Value;
use crate::jsonrpc::{Id, code};
use crate::mcp::LoggingLevel;
use crate::mcp::meta::META_LOG_LEVEL;
use crate::server::dispatch::{Parts, plain_or_unescaped};
use crate::server::handler::RequestContext;
#[cfg(feature = "logging")]
use crate::server::params::Params;
use crate::server::reply::{Notes, ReplyId};
use crate::server::{Handler, Session};
use crate::text::Plain;
use crate::version::Era;

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// What a request opted into: progress (a `progressToken` in `_meta`) and log messages (the
    /// server declares `logging`, and the legacy session's level or the request's `logLevel` lets
    /// them through).
    pub(crate) fn notes<'x>(&self, context: &RequestContext<'x>) -> Notes<ReplyId<'x>> {
        let progress_token = context.progress_token.and_then(Id::from_value);
        let log_level = match (self.capabilities().logging, context.version.served_era()) {
            (false, _) => None,
            (true, Era::Modern) => context.log_level.and_then(level_of),
            (true, _) => match *self.session {
                Session::Legacy { log_level, .. } => Some(log_level),
                Session::None => None,
            },
        };
        Notes { progress_token: progress_token.map(ReplyId::Borrowed), last_progress: None, log_level }
    }

    /// Checks a modern request's `logLevel`: `false` (answered `-32602`) when it is not a level.
    pub(crate) fn check_log_level(&mut self, id: Id<'_>, level: Option<Value<'_>>) -> bool {
        match level {
            Some(level) if level_of(level).is_none() => {
                self.reject(
                    Some(&id),
                    code::INVALID_PARAMS,
                    format_args!(
                        "_meta \"{META_LOG_LEVEL}\" is not a log level",
                        META_LOG_LEVEL = Plain(META_LOG_LEVEL)
                    ),
                );
                false
            }
            _ => true,
        }
    }

    /// `logging/setLevel` (legacy).
    #[cfg(feature = "logging")]
    pub(crate) fn set_level(&mut self, id: Id<'_>, params: &Params<'_>, context: RequestContext<'_>) {
        let Some(level) = params.get("level").and_then(level_of) else {
            return self.reject(
                Some(&id),
                code::INVALID_PARAMS,
                format_args!(
                    "\"level\" must be one of debug, info, notice, warning, error, critical, alert, emergency"
                ),
            );
        };
        if let Session::Legacy { log_level, .. } = self.session {
            *log_level = level;
        }
        self.empty_result(id, context.version);
    }
}

/// A log level value, if it is one.
fn level_of(value: Value<'_>) -> Option<LoggingLevel> {
    let text = value.as_str()?;
    let mut buf = [0u8; 16];
    plain_or_unescaped(text, &mut buf).and_then(LoggingLevel::from_wire)
}
