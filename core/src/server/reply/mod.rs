//! Replies: writers that put an answer straight into the transmit buffer.
//!
//! A reply is handed to the handler with the JSON-RPC envelope already open. Whatever the handler
//! writes goes into a window of the transmit buffer; [`finish`](ToolReply::finish) closes the message
//! and commits it in one step. If the message does not fit its window, nothing of it is committed and
//! the client gets a `-32603` error instead, so the output stream never holds a partial message. A reply
//! dropped without an answer is answered with an internal error: every request is answered exactly once.

use crate::endpoint::{Commit, Route};
use crate::json::JsonWriter;
use crate::jsonrpc::{ErrorMessage, Id, MAX_ID_LEN, OwnedId, WriteId, code, write_error, write_result_head};
use crate::num::Decimal;
use crate::server::server_info::ServerInfo;
use crate::version::{Era, ProtocolVersion};

/// A request kept open past its frame (see [`ToolReply::defer`]).
#[derive(Clone, Debug)]
pub(crate) struct InFlight {
    pub(crate) id: OwnedId,
    pub(crate) kind: ReplyKind,
    pub(crate) version: ProtocolVersion,
    pub(crate) route: Route,
    pub(crate) generation: u32,
    pub(crate) cancelled: bool,
    /// Progress notifications and log messages the request opted into.
    pub(crate) notes: Notes<OwnedId>,
    /// What a `subscriptions/listen` stream asked for.
    pub(crate) listen: Option<crate::server::subscriptions::Listen>,
    /// What the client declared for this request (its session's, or its own `_meta`'s), to ask it
    /// for input later ([`Engine::reply_input`](crate::server::Engine::reply_input),
    /// [`Engine::request_input`](crate::server::Engine::request_input)).
    pub(crate) client: crate::mcp::ClientCapabilities,
    /// The task a 2025-11-25 `tasks/result` waits for ([`ReplyKind::TaskResult`]).
    #[cfg(feature = "tasks")]
    pub(crate) task: Option<[u8; crate::server::tasks::TASK_ID_LEN]>,
    /// Its reply has been opened (`Engine::reopen`, in `deferred.rs`): the slot is free, and the
    /// entry is kept only for that reply to borrow its id and progress token. A reply that holds
    /// ids by reference stays small, and a handler's by-value reply builders copy it several times
    /// over in the frame of the method it serves (the firmware's `dispatch` frame measured 3,036 B
    /// with ids held by value, 2,036 B without); kept here, the ids need no room of their own.
    pub(crate) replied: bool,
}

impl InFlight {
    /// The request kept in `slot`, unless the slot is free (empty, or its request's reply opened).
    pub(crate) fn live(slot: &Option<InFlight>) -> Option<&InFlight> {
        slot.as_ref().filter(|entry| !entry.replied)
    }

    /// [`InFlight::live`], to change.
    pub(crate) fn live_mut(slot: &mut Option<InFlight>) -> Option<&mut InFlight> {
        slot.as_mut().filter(|entry| !entry.replied)
    }

    /// Whether `slot` can take a request.
    pub(crate) fn is_free(slot: &Option<InFlight>) -> bool {
        Self::live(slot).is_none()
    }

    /// Marks the request, kept in in-flight slot `slot`, cancelled: its answer is suppressed. The
    /// key to report it by ([`Event::Cancelled`](crate::server::Event::Cancelled)).
    pub(crate) fn cancel(&mut self, slot: usize) -> DeferredKey {
        self.cancelled = true;
        Deferred { slot: u16::try_from(slot).unwrap_or(u16::MAX), generation: self.generation, kind: self.kind }.key()
    }
}

/// The id a reply answers: borrowed from the frame, or kept from a deferral (borrowed from its
/// in-flight entry, see [`InFlight::replied`]). A reference either way, so a reply stays small to
/// copy.
pub(crate) enum ReplyId<'a> {
    Borrowed(Id<'a>),
    Owned(&'a OwnedId),
}

impl WriteId for ReplyId<'_> {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        match self {
            ReplyId::Borrowed(id) => id.write(w),
            ReplyId::Owned(id) => id.write(w),
        }
    }
}

/// Where deferred requests are registered.
pub(crate) struct DeferSlots<'a> {
    pub(crate) slots: &'a mut [Option<InFlight>],
    pub(crate) next_generation: &'a mut u32,
    /// Where a legacy input-required answer reports its length (see `legacy_input`).
    pub(crate) input_signal: &'a mut Option<usize>,
}

/// The shared machinery of every reply: an open result object in a transmit window.
pub(crate) struct Outgoing<'a> {
    w: JsonWriter<'a>,
    commit: Option<Commit<'a>>,
    result_type: ResultType,
    id: ReplyId<'a>,
    version: ProtocolVersion,
    server_info: ServerInfo<'a>,
    defer_slots: Option<DeferSlots<'a>>,
    notes: Notes<ReplyId<'a>>,
    /// Borrowed from the frame of the method serving the request, as [`ReplyId`] is: a reply is
    /// copied whole by each by-value builder step.
    input: Option<&'a crate::server::input::InputScope<'a>>,
    /// `_meta` members the application adds to the result (a JSON object's text).
    meta: Option<&'a str>,
    /// The task this reply writes the answer of, or may become ([`tasks`](crate::server::tasks)).
    #[cfg(feature = "tasks")]
    task: Option<crate::server::tasks::TaskScope<'a>>,
    first_field: bool,
    done: bool,
}

impl<'a> Outgoing<'a> {
    /// Opens `{"jsonrpc":"2.0","id":…,"result":{` in a window of the transmit queue; `slot` commits
    /// the message (framed for its stream) when it is finished. Without a slot nothing is written.
    pub(crate) fn open(
        slot: Option<(&'a mut [u8], Commit<'a>)>,
        id: ReplyId<'a>,
        version: ProtocolVersion,
        server_info: ServerInfo<'a>,
        defer_slots: Option<DeferSlots<'a>>,
    ) -> Self {
        let (window, commit) = match slot {
            Some((window, commit)) => (window, Some(commit)),
            None => (&mut [][..], None),
        };
        let mut out = Outgoing {
            w: JsonWriter::new(window),
            commit,
            result_type: ResultType::Complete,
            id,
            version,
            server_info,
            defer_slots,
            notes: Notes::none(),
            input: None,
            meta: None,
            #[cfg(feature = "tasks")]
            task: None,
            first_field: true,
            done: false,
        };
        write_result_head(&mut out.w, &out.id);
        out.w.byte(b'{');
        out
    }

    pub(crate) fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// Adds the members of `meta` (the text of a JSON object) to the result's `_meta`; `false` if it
    /// is not an object (the result is then sent without them).
    pub(crate) fn set_meta(&mut self, meta: &'a str) -> bool {
        let object = crate::json::parse(meta.as_bytes(), crate::json::MAX_DEPTH_LIMIT)
            .is_ok_and(|v| v.kind() == crate::json::Kind::Object);
        if object {
            self.meta = Some(meta);
        }
        object
    }

    /// Writes the application's `_meta` members, each followed by a comma (raw newlines in its
    /// whitespace become spaces, as everywhere the writer copies a value).
    fn write_meta_members(&mut self) {
        let Some(meta) = self.meta else { return };
        let Ok(object) = crate::json::parse(meta.as_bytes(), crate::json::MAX_DEPTH_LIMIT) else { return };
        for (key, value) in object.members() {
            self.w.json_str(key);
            self.w.byte(b':');
            self.w.value(value);
            self.w.byte(b',');
        }
    }

    /// Sets the `resultType` (2026-07-28).
    pub(crate) fn set_result_type(&mut self, result_type: ResultType) {
        self.result_type = result_type;
    }

    /// Lets the handler ask for input (what the engine knows of the request for that).
    pub(crate) fn with_input(mut self, input: &'a crate::server::input::InputScope<'a>) -> Self {
        self.input = Some(input);
        self
    }

    /// Turns this reply into an input-required answer.
    pub(crate) fn into_input(mut self) -> crate::server::input::InputReply<'a> {
        let scope = self.input.take().copied();
        crate::server::input::InputReply::new(self, scope)
    }

    /// Sets what the request opted into (progress, logging). A task's reply sends neither.
    pub(crate) fn with_notes(mut self, notes: Notes<ReplyId<'a>>) -> Self {
        #[cfg(feature = "tasks")]
        if self.task.as_ref().is_some_and(|t| t.slot.is_some()) {
            return self;
        }
        self.notes = notes;
        self
    }

    /// Lets this reply be (or become) a task's.
    #[cfg(feature = "tasks")]
    pub(crate) fn with_task(mut self, task: Option<crate::server::tasks::TaskScope<'a>>) -> Self {
        if task.as_ref().is_some_and(|t| t.slot.is_some()) {
            self.notes = Notes::none();
        }
        self.task = task;
        self
    }

    /// Whether this reply is a task's (its answer is kept in the task table).
    #[cfg(feature = "tasks")]
    pub(crate) fn is_task(&self) -> bool {
        self.task.as_ref().is_some_and(|t| t.slot.is_some())
    }

    /// Whether this reply's answer goes to the task table: a task's, or its request run again.
    #[cfg(feature = "tasks")]
    pub(crate) fn answers_a_task(&self) -> bool {
        self.is_task() || self.commit.as_ref().is_some_and(|c| c.route() == crate::server::tasks::TASK_ROUTE)
    }

    /// Makes this reply a task's (see [`ToolReply::run_as_task`]).
    #[cfg(feature = "tasks")]
    pub(crate) fn make_task(&mut self) -> Result<(), crate::server::tasks::NoTask> {
        use crate::server::tasks::NoTask;
        let task = self.task.as_mut().ok_or(NoTask::Unavailable)?;
        if task.slot.is_none() {
            task.slot = Some(task.table.create(task.now, task.params, task.legacy).ok_or(NoTask::Full)?);
            self.notes = Notes::none();
        }
        Ok(())
    }

    /// Answers the client's request with task `slot` of `table`: 2026-07-28's flat
    /// `CreateTaskResult` (`resultType: "task"`), or 2025-11-25's `{"task": {…}}`.
    #[cfg(feature = "tasks")]
    fn answer_with_task(&mut self, table: &mut dyn crate::server::tasks::TaskSink, slot: usize) {
        use crate::server::tasks::TaskWire;
        self.w.truncate(0);
        write_result_head(&mut self.w, &self.id);
        if self.version.served_era() == Era::Modern {
            self.w.byte(b'{');
            table.write_task(slot, &mut self.w, TaskWire::Created);
        } else {
            self.w.raw(b"{\"task\":{");
            table.write_task(slot, &mut self.w, TaskWire::Legacy);
            self.w.byte(b'}');
        }
        self.first_field = false;
        self.result_type = ResultType::Task;
        self.meta = None;
        self.finish(None);
    }

    /// For a task's reply: keeps what was written (the whole message but its framing suffix) as the
    /// task's outcome and, if the reply answers the client's request, answers it with the task.
    /// `true` if the reply was a task's.
    #[cfg(feature = "tasks")]
    fn capture(&mut self) -> bool {
        let Some(task) = self.task.take() else { return false };
        let Some(slot) = task.slot else {
            self.task = Some(task);
            return false;
        };
        let written = self.w.written();
        let message = written.get(..written.len().saturating_sub(self.suffix().len())).unwrap_or_default();
        task.table.capture(slot, task.now, message);
        if task.fresh {
            self.answer_with_task(task.table, slot);
        } else {
            // Nothing goes on the wire: the window is given back unused.
            self.commit = None;
            self.done = true;
        }
        true
    }

    pub(crate) fn writer(&mut self) -> &mut JsonWriter<'a> {
        &mut self.w
    }

    /// Ends a reply whose answer is written (a handler's reply through its finishing methods, or
    /// one the engine wrote itself): the reply is forgotten, not dropped, so the place that
    /// finished it has no call to `Drop`, which would do nothing (see docs/firmware.md, "Flash:
    /// constant images and finished replies").
    #[inline(always)]
    pub(crate) fn answered(self) {
        debug_assert!(self.done, "a reply ended before its answer was written");
        core::mem::forget(self);
    }

    /// Members were written into the result object directly: the next field needs a comma.
    #[cfg(feature = "tasks")]
    pub(crate) fn members_written(&mut self) {
        self.first_field = false;
    }

    /// Starts the member `name` of the result object. Out of line: a call is smaller than the
    /// flag's and the writer's addresses computed at each of its two dozen callers.
    #[inline(never)]
    pub(crate) fn field(&mut self, name: &'static str) {
        self.w.next_key(&mut self.first_field, name);
    }

    /// Closes the result (adding the modern era's `resultType`, cache hints and `_meta.serverInfo`) and
    /// commits it; a result that overflowed its window becomes a `-32603` error.
    pub(crate) fn finish(&mut self, cache: Option<CacheHints>) {
        if self.version.served_era() == Era::Modern {
            self.field("resultType");
            self.w.string(self.result_type.as_str());
            if let Some(cache) = cache {
                self.field("ttlMs");
                self.w.u64(cache.ttl_ms);
                self.field("cacheScope");
                self.w.string(cache.scope.as_str());
            }
            self.field("_meta");
            self.w.byte(b'{');
            self.write_meta_members();
            self.w.key("io.modelcontextprotocol/serverInfo");
            self.server_info.write(&mut self.w, self.version);
            self.w.byte(b'}');
        } else if cfg!(feature = "tasks") && self.result_type == ResultType::InputRequired {
            // A 2025-11-25 task's questions, for the task table only (`tasks::ask`): never sent.
            self.field("resultType");
            self.w.raw(b"\"input_required\"");
        } else if self.meta.is_some() {
            self.field("_meta");
            self.w.byte(b'{');
            let end = self.w.len();
            self.write_meta_members();
            // Drop the comma after the last member.
            if self.w.len() > end {
                let len = self.w.len();
                self.w.truncate(len - 1);
            }
            self.w.byte(b'}');
        }
        // The framing suffix is part of the message: a result that fits only without it does not fit.
        self.w.raw(b"}}");
        self.w.raw(self.suffix());
        if self.w.is_overflowed() {
            let capacity = self.w.capacity();
            self.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Named(format_args!(
                    "the result does not fit the {}-byte transmit window",
                    Decimal(capacity as u64)
                )),
                None,
            );
            return;
        }
        self.commit();
    }

    /// Closes an input-required result in a legacy session without committing it: the engine reads
    /// it back and asks the client itself. `false` (and nothing done) where that is not possible (a
    /// deferred answer).
    pub(crate) fn finish_for_legacy_input(&mut self) -> bool {
        let Some(defer) = self.defer_slots.as_mut() else { return false };
        self.w.raw(b"}}");
        if self.w.is_overflowed() {
            return false;
        }
        *defer.input_signal = Some(self.w.len());
        self.done = true;
        true
    }

    /// Replaces whatever was written by an error response (shortened if it does not fit, as
    /// [`write_error`] says) and commits it.
    pub(crate) fn fail(&mut self, code: i32, message: ErrorMessage<'_>, data: Option<&dyn Fn(&mut JsonWriter<'_>)>) {
        self.w.truncate(0);
        let suffix = self.suffix();
        write_error(&mut self.w, Some(&self.id), code, message, data, suffix);
        self.commit();
    }

    /// What ends a message on this reply's stream (nothing when there is no room to write at all).
    fn suffix(&self) -> &'static [u8] {
        self.commit.as_ref().map_or(b"", Commit::suffix)
    }

    /// Commits the message written, which ends with its framing suffix; the stream ends after it if
    /// its route says so.
    fn commit(&mut self) {
        #[cfg(feature = "tasks")]
        if self.capture() {
            return;
        }
        if let Some(commit) = self.commit.take().filter(|_| !self.w.is_overflowed()) {
            let end_of_stream = commit.route().ends_with_response;
            commit.commit(self.w.len(), end_of_stream);
        }
        self.done = true;
    }

    /// Registers the request as in flight and closes this writer without output.
    pub(crate) fn defer(&mut self, kind: ReplyKind) -> Result<Deferred, DeferError> {
        let result = self.register(kind);
        match result {
            Ok(_) => {
                self.w.truncate(0);
                self.done = true;
                // A new task answers the client's request with the task at once.
                #[cfg(feature = "tasks")]
                if let Some(task) = self.task.take().filter(|t| t.fresh)
                    && let Some(slot) = task.slot
                {
                    self.done = false;
                    self.answer_with_task(task.table, slot);
                }
            }
            Err(DeferError::TooManyInFlight) => self.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Whole(format_args!("Server busy: too many requests in flight")),
                None,
            ),
            Err(DeferError::IdTooLong) => self.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Named(format_args!(
                    "request ids longer than {} bytes cannot be answered later",
                    Decimal(MAX_ID_LEN as u64)
                )),
                None,
            ),
            Err(DeferError::NotDeferrable) => {
                self.fail(code::INTERNAL_ERROR, ErrorMessage::Named(format_args!("reply deferred twice")), None)
            }
        }
        result
    }

    fn register(&mut self, kind: ReplyKind) -> Result<Deferred, DeferError> {
        let version = self.version;
        let Some(defer) = self.defer_slots.as_mut() else {
            return Err(DeferError::NotDeferrable);
        };
        let ReplyId::Borrowed(id) = &self.id else {
            return Err(DeferError::NotDeferrable);
        };
        // The answer goes where this reply would have gone; a new task's answer to its task.
        #[cfg_attr(not(feature = "tasks"), allow(unused_mut))]
        let mut route = self.commit.as_ref().map(Commit::route).ok_or(DeferError::NotDeferrable)?;
        #[cfg_attr(not(feature = "tasks"), allow(unused_mut))]
        let mut id = OwnedId::from_id(*id).ok_or(DeferError::IdTooLong)?;
        #[cfg(feature = "tasks")]
        if let Some(task) = self.task.as_mut().filter(|t| t.fresh)
            && let Some(slot) = task.slot
        {
            route = crate::server::tasks::TASK_ROUTE;
            id = task.table.owned_id(slot).ok_or(DeferError::IdTooLong)?;
        }
        let notes = self.notes.to_owned().ok_or(DeferError::IdTooLong)?;
        let (slot, entry) = defer
            .slots
            .iter_mut()
            .enumerate()
            .find(|(_, s)| InFlight::is_free(s))
            .ok_or(DeferError::TooManyInFlight)?;
        let slot = u16::try_from(slot).map_err(|_| DeferError::TooManyInFlight)?;
        let generation = *defer.next_generation;
        *defer.next_generation = generation.wrapping_add(1);
        let client = self.input.map(|scope| scope.client).unwrap_or_default();
        *entry = Some(InFlight {
            id,
            kind,
            version,
            route,
            generation,
            cancelled: false,
            notes,
            listen: None,
            client,
            #[cfg(feature = "tasks")]
            task: None,
            replied: false,
        });
        Ok(Deferred { slot, generation, kind })
    }
}

impl Drop for Outgoing<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.fail(code::INTERNAL_ERROR, ErrorMessage::Named(format_args!("the handler did not answer")), None);
        }
    }
}

/// The progress, logging and input methods every reply of tools, prompts and resources has.
macro_rules! note_methods {
    () => {
        /// Answers that the client must provide input first (elicitation, sampling, roots); see
        /// [`InputReply`](crate::server::InputReply) and the [input model](crate::server::input).
        pub fn input_required(self) -> crate::server::InputReply<'a> {
            self.out.into_input()
        }

        /// Sends `notifications/progress` for this request, ahead of its answer on the same stream,
        /// if the request carried a `progressToken`. `progress` must be larger than the last one sent
        /// ([`SendError::NotIncreasing`](crate::endpoint::SendError::NotIncreasing)); only before the
        /// first part of the answer is written ([`SendError::NotAvailable`](crate::endpoint::SendError::NotAvailable)
        /// after it, or without a token). The notification takes room from the answer's window.
        pub fn progress(
            &mut self,
            progress: u64,
            total: Option<u64>,
            message: Option<&str>,
        ) -> Result<(), crate::endpoint::SendError> {
            self.out.progress(progress, total, message)
        }

        /// Sends `notifications/message` for this request, ahead of its answer on the same stream, if
        /// the server declares `logging` and the request's level lets `level` through (the legacy
        /// session's `logging/setLevel`, or the request's `io.modelcontextprotocol/logLevel` in
        /// 2026-07-28, which sends nothing without it). `Ok(false)`: filtered out. Same rules as
        /// [`progress`](Self::progress) otherwise.
        pub fn log(
            &mut self,
            level: crate::mcp::LoggingLevel,
            logger: Option<&str>,
            data: core::fmt::Arguments<'_>,
        ) -> Result<bool, crate::endpoint::SendError> {
            self.out.log(level, logger, data)
        }

        /// Adds the members of `meta`, the text of a JSON object, to the result's `_meta` (beside the
        /// engine's `io.modelcontextprotocol/serverInfo` in 2026-07-28; keys there must differ).
        /// Text that is not a JSON object is left out.
        pub fn meta(mut self, meta: &'a str) -> Self {
            let _ = self.out.set_meta(meta);
            self
        }

        /// Like [`log`](Self::log), with any value serde can serialize as the data (an object with
        /// details, say).
        pub fn log_value<T: serde::Serialize + ?Sized>(
            &mut self,
            level: crate::mcp::LoggingLevel,
            logger: Option<&str>,
            data: &T,
        ) -> Result<bool, crate::endpoint::SendError> {
            self.out.log_value(level, logger, data)
        }
    };
}

mod completion;
mod content;
mod handles;
mod notes;
mod prompt;
mod resource;
mod tool;

pub use crate::mcp::Role;
pub use completion::{CompletionReply, MAX_COMPLETION_VALUES};
pub use content::{Content, ResourceContents};
pub use handles::{CacheHints, CacheScope, DeferError, Deferred, DeferredKey, ReplyError, ReplyKind, ResultType};
pub(crate) use notes::{Notes, write_log};
pub use prompt::PromptReply;
pub use resource::ResourceReply;
pub use tool::ToolReply;
