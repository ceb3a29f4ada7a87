//! What a request opts into besides its answer: progress notifications (a `progressToken`) and log
//! messages at or above a level, and how both are written.

use core::fmt;

use crate::endpoint::SendError;
use crate::json::JsonWriter;
use crate::jsonrpc::{self, write_result_head};
use crate::jsonrpc::{Id, OwnedId, WriteId};
use crate::mcp::LoggingLevel;
use crate::server::reply::{Outgoing, ReplyId};

/// What a request opted into besides its answer: `notifications/progress` (it carried a
/// `progressToken`) and `notifications/message` at or above a level. `T` holds the token: borrowed
/// from the request while it is being answered, owned once it is deferred.
#[derive(Clone, Debug)]
pub(crate) struct Notes<T> {
    pub(crate) progress_token: Option<T>,
    /// The last progress sent: each must be larger.
    pub(crate) last_progress: Option<u64>,
    /// Messages at this level or above are sent; `None`: none are.
    pub(crate) log_level: Option<LoggingLevel>,
}

impl<T> Notes<T> {
    /// No progress token, no progress sent, no log messages. A function, not an associated
    /// constant: a constant is copied from an image of it in flash wherever it is used (see
    /// docs/firmware.md, "Flash: constant images and finished replies").
    pub(crate) fn none() -> Self {
        Notes { progress_token: None, last_progress: None, log_level: None }
    }
}

impl<T: WriteId> Notes<T> {
    /// Writes a `notifications/progress` (all of it but the framing) if the request asked for
    /// progress and `progress` is larger than the last.
    pub(crate) fn write_progress(
        &mut self,
        w: &mut JsonWriter<'_>,
        progress: u64,
        total: Option<u64>,
        message: Option<&str>,
    ) -> Result<(), SendError> {
        let Some(token) = self.progress_token.as_ref() else { return Err(SendError::NotAvailable) };
        if self.last_progress.is_some_and(|last| progress <= last) {
            return Err(SendError::NotIncreasing);
        }
        jsonrpc::write_notification_params_head(w, "notifications/progress");
        w.key("progressToken");
        token.write_id(w);
        w.member("progress");
        w.u64(progress);
        if let Some(total) = total {
            w.member("total");
            w.u64(total);
        }
        if let Some(message) = message {
            w.member("message");
            w.string(message);
        }
        w.raw(b"}}");
        Ok(())
    }

    /// Whether a message at `level` is to be sent.
    pub(crate) fn logs(&self, level: LoggingLevel) -> bool {
        // A build without `logging` sends no log message (and links no code for one).
        cfg!(feature = "logging") && self.log_level.is_some_and(|min| level >= min)
    }

    /// Marks a progress notification as sent.
    pub(crate) fn sent_progress(&mut self, progress: u64) {
        self.last_progress = Some(progress);
    }

    /// The owned form, for a deferred request (`None` if the token is too long to keep).
    pub(crate) fn to_owned(&self) -> Option<Notes<OwnedId>>
    where
        T: AsOwnedId,
    {
        let progress_token = match &self.progress_token {
            Some(token) => Some(token.as_owned_id()?),
            None => None,
        };
        Some(Notes { progress_token, last_progress: self.last_progress, log_level: self.log_level })
    }
}

/// Writes a `notifications/message` (all of it but the framing) with a string as its data.
pub(crate) fn write_log(w: &mut JsonWriter<'_>, level: LoggingLevel, logger: Option<&str>, data: fmt::Arguments<'_>) {
    write_log_head(w, level, logger);
    w.string_fmt(data);
    w.raw(b"}}");
}

/// Writes a `notifications/message` up to its data.
fn write_log_head(w: &mut JsonWriter<'_>, level: LoggingLevel, logger: Option<&str>) {
    jsonrpc::write_notification_params_head(w, "notifications/message");
    w.key("level");
    w.string(level.as_str());
    if let Some(logger) = logger {
        w.member("logger");
        w.string(logger);
    }
    w.member("data");
}

/// An id-shaped value that can be kept past its frame.
pub(crate) trait AsOwnedId {
    fn as_owned_id(&self) -> Option<OwnedId>;
}

impl AsOwnedId for Id<'_> {
    fn as_owned_id(&self) -> Option<OwnedId> {
        OwnedId::from_id(*self)
    }
}

impl AsOwnedId for ReplyId<'_> {
    fn as_owned_id(&self) -> Option<OwnedId> {
        match self {
            ReplyId::Borrowed(id) => id.as_owned_id(),
            ReplyId::Owned(id) => Some((*id).clone()),
        }
    }
}

/// Notes written ahead of a reply's answer, in its window.
impl<'a> Outgoing<'a> {
    /// Sends a progress notification before the result (see [`Outgoing::interpose`]).
    pub(crate) fn progress(
        &mut self,
        progress: u64,
        total: Option<u64>,
        message: Option<&str>,
    ) -> Result<(), SendError> {
        let mut notes = core::mem::replace(&mut self.notes, Notes::none());
        let result = self.interpose(&mut |w| notes.write_progress(w, progress, total, message));
        if result.is_ok() {
            notes.sent_progress(progress);
        }
        self.notes = notes;
        result
    }

    /// Sends a log message before the result if the request's level lets it through (see
    /// [`Outgoing::interpose`]); `Ok(false)` when it was filtered out.
    pub(crate) fn log(
        &mut self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: fmt::Arguments<'_>,
    ) -> Result<bool, SendError> {
        if !self.notes.logs(level) {
            return Ok(false);
        }
        self.interpose(&mut |w| {
            write_log(w, level, logger, data);
            Ok(())
        })
        .map(|()| true)
    }

    /// Like [`Outgoing::log`], with any serializable value as the data.
    pub(crate) fn log_value<T: serde::Serialize + ?Sized>(
        &mut self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: &T,
    ) -> Result<bool, SendError> {
        if !self.notes.logs(level) {
            return Ok(false);
        }
        self.interpose(&mut |w| {
            write_log_head(w, level, logger);
            w.serialize(data);
            w.raw(b"}}");
            Ok(())
        })
        .map(|()| true)
    }

    /// Writes a notification as a message of its own on this reply's stream, ahead of the result,
    /// in the reply's window (which shrinks by as much, but keeps room for an error answer:
    /// [`SendError::Full`] beyond that). Only before any part of the result is written.
    /// Not generic over the closure: one copy in flash for every kind of note.
    fn interpose(
        &mut self,
        body: &mut dyn FnMut(&mut JsonWriter<'_>) -> Result<(), SendError>,
    ) -> Result<(), SendError> {
        if !self.first_field || self.done || self.commit.is_none() {
            return Err(SendError::NotAvailable);
        }
        let window = core::mem::replace(&mut self.w, JsonWriter::new(&mut [])).into_buffer();
        let mut w = JsonWriter::new(window);
        let written = body(&mut w);
        w.raw(self.suffix());
        // The answer keeps room for any error the engine may have to write in its place (and its
        // framing): a notification that would leave less is refused, so the request is still answered.
        let keep = crate::server::MIN_RESPONSE_WINDOW;
        let (window, result) = match written {
            Ok(()) if !w.is_overflowed() && w.capacity() - w.len() < keep => (w.into_buffer(), Err(SendError::Full)),
            Ok(()) if !w.is_overflowed() => {
                let len = w.len();
                let window = w.into_buffer();
                let (_, rest) = window.split_at_mut(len);
                let prefix = self.commit.as_mut().map_or(0, |commit| commit.commit_and_continue(len, rest));
                let rest = match rest.len() >= prefix {
                    true => rest.split_at_mut(prefix).1,
                    false => &mut [],
                };
                (rest, Ok(()))
            }
            Ok(()) => (w.into_buffer(), Err(SendError::TooLarge)),
            Err(error) => (w.into_buffer(), Err(error)),
        };
        self.w = JsonWriter::new(window);
        write_result_head(&mut self.w, &self.id);
        self.w.byte(b'{');
        result
    }
}
