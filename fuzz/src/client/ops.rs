//! The operations of a run: the server's lines, their delivery, the client's requests, time.

use super::*;

impl<'a, const N: usize> Run<'a, N> {
    /// One `poll_transmit`/`transmit_done` round reporting `n` bytes written.
    pub(super) fn transmit(&mut self, n: usize) -> bool {
        let now = self.now();
        let Some(pending) = self.client.poll_transmit() else { return false };
        let n = n.min(pending.bytes.len());
        let written = pending.bytes[..n].to_vec();
        let (engine, host) = self.client.parts_mut();
        engine.transmit_done(now, n, host);
        for line in self.out_tail.feed(&written) {
            self.sent_line(&line);
        }
        true
    }

    pub(super) fn flush(&mut self) {
        let mut rounds = 0;
        while self.transmit(usize::MAX) {
            rounds += 1;
            assert!(rounds < 10_000, "the output never drains");
            self.check();
        }
    }

    /// The engine took nothing although input is waiting: output must be pending (back-pressure).
    pub(super) fn assert_not_stalled(&self) {
        assert!(self.client.poll_transmit().is_some(), "the engine refuses input with nothing to transmit");
    }

    pub(super) fn deliver(&mut self, limit: usize) {
        if self.eof || self.queued.is_empty() {
            return;
        }
        let n = limit.min(self.queued.len());
        if n == 0 {
            return;
        }
        let now = self.now();
        let data = self.queued[..n].to_vec();
        let taken = self.client.handle_input(now, &data);
        assert!(taken <= n, "took more than it was given");
        if taken == 0 {
            self.assert_not_stalled();
        }
        self.queued.drain(..taken);
        self.took(&data[..taken]);
    }

    pub(super) fn deliver_all(&mut self) {
        let mut rounds = 0;
        while !self.eof && !self.queued.is_empty() {
            rounds += 1;
            assert!(rounds < 100_000, "the input is never taken");
            let before = self.queued.len();
            self.deliver(usize::MAX);
            self.check();
            if self.queued.len() == before {
                self.flush();
            }
        }
    }

    pub(super) fn deliver_with_spare(&mut self, limit: usize, overcommit: usize) {
        if self.eof {
            assert!(self.client.rx_spare().is_empty(), "rx_spare offers room after the end of input");
            return;
        }
        if self.queued.is_empty() {
            return;
        }
        let spare = self.client.rx_spare();
        let room = spare.len();
        if room == 0 {
            self.assert_not_stalled();
            return;
        }
        let n = room.min(limit.max(1)).min(self.queued.len());
        spare[..n].copy_from_slice(&self.queued[..n]);
        let committed = if n == room { n + overcommit } else { n };
        let now = self.now();
        let (engine, host) = self.client.parts_mut();
        engine.rx_commit(now, committed, host);
        let bytes: Vec<u8> = self.queued.drain(..n).collect();
        self.took(&bytes);
    }

    pub(super) fn end_of_input(&mut self) {
        let now = self.now();
        self.client.handler_mut().eof = true;
        let (engine, host) = self.client.parts_mut();
        engine.handle_eof(now, host);
        self.eof = true;
        self.queued.clear();
    }

    pub(super) fn clock(&mut self, step: u16) {
        self.now = match step {
            u16::MAX => self.client.poll_timeout().map_or(self.now, |t| t.as_millis().max(self.now)),
            step => self.now + u64::from(step),
        };
        let now = self.now();
        let (engine, host) = self.client.parts_mut();
        engine.handle_timeout(now, host);
        if let Some(deadline) = self.client.poll_timeout() {
            assert!(deadline > now, "a deadline at {deadline:?} is still due after handle_timeout({now:?})");
        }
    }

    /// Queues a generated line and applies its flags.
    pub(super) fn queue_line(&mut self, line: &str, flags: u8) {
        self.queued.extend_from_slice(line.as_bytes());
        self.queued.extend_from_slice(if flags & flag::CRLF != 0 { b"\r\n" } else { b"\n" });
        if flags & flag::DELIVER != 0 {
            self.deliver_all();
        }
    }

    /// The id (JSON text) an answer goes to.
    pub(super) fn answer_target(&mut self, input: &mut Input<'_>) -> String {
        let last = self.sent.keys().next_back().copied();
        let selector = input.byte();
        match selector % 8 {
            0..=2 => format!("{}", last.unwrap_or(1)),
            3 => {
                if self.outstanding.is_empty() {
                    return format!("{}", last.unwrap_or(1));
                }
                let id = self.outstanding.remove(input.below(self.outstanding.len()));
                format!("{id}")
            }
            4 => {
                let key = self.app_keys.get(input.below(self.app_keys.len()));
                format!("{}", key.map_or(1, |k| k.id()))
            }
            5 => format!("{}", last.unwrap_or(0) + 1 + i64::from(selector >> 6)),
            6 => format!("{}", input.byte()),
            _ => {
                let last = last.unwrap_or(1);
                [
                    format!("\"{last}\""),
                    format!("{last}.0"),
                    "null".to_string(),
                    format!("-{last}"),
                    format!("{last}e0"),
                ][usize::from(selector >> 3) % 5]
                    .clone()
            }
        }
    }

    pub(super) fn answer(&mut self, input: &mut Input<'_>) {
        let flags = input.byte();
        if flags & flag::TRANSMIT_FIRST != 0 {
            self.flush();
        }
        let target = self.answer_target(input);
        let line = self.generator.answer(&target, input);
        self.queue_line(&line, flags);
    }

    pub(super) fn last_sent(&self) -> i64 {
        self.sent.keys().next_back().copied().unwrap_or(1)
    }

    /// A typed request from the application.
    pub(super) fn request(&mut self, input: &mut Input<'_>) {
        let now = self.now();
        let kind = input.byte();
        let text = String::from_utf8_lossy(input.chunk()).into_owned();
        let arguments = match input.byte() % 8 {
            0 => None,
            1 => Some("5".to_string()),
            2 => Some(format!(r#"{{"text":{}}}"#, serde_json::to_string(&text).expect("strings serialize"))),
            3 => {
                // Large params; past 64 KiB when kept for a retry in the large configuration.
                let len = usize::from(input.u16()) + if input.byte() & 1 == 0 { 0 } else { 65_500 };
                Some(format!(r#"{{"pad":"{}"}}"#, "p".repeat(len)))
            }
            4 => Some(r#"{"a":[1,{"b":null}],"inputResponses":{},"requestState":"mine"}"#.to_string()),
            _ => Some("{}".to_string()),
        };
        let arguments = arguments.as_deref().map(|a| parse(a.as_bytes(), MAX_DEPTH_LIMIT).expect("valid arguments"));
        let before = self.client.awaiting_answers();
        let engine = &mut *self.client;
        let result = match kind % 14 {
            0..=3 => engine.call_tool(now, &text, arguments),
            4 => engine.list_tools(now, arguments),
            5 => engine.ping(now),
            6 => engine.read_resource(now, &text),
            7 => engine.get_prompt(now, &text, arguments),
            8 => engine.request_with_progress(
                now,
                "tools/call",
                Some(&|w: &mut JsonWriter<'_>| {
                    w.raw(b"\"name\":");
                    w.string(&text);
                }),
            ),
            9 => match kind >> 4 & 3 {
                0 => engine.list_prompts(now, None),
                1 => engine.list_resources(now, arguments),
                2 => engine.list_resource_templates(now, None),
                _ => engine.subscribe(now, &text),
            },
            10 => match kind >> 4 & 3 {
                0 => engine.unsubscribe(now, &text),
                1 => engine.set_logging_level(now, LoggingLevel::ALL[usize::from(kind >> 6) % 8]),
                _ => {
                    let reference = parse(br#"{"type":"ref/prompt","name":"p"}"#, 8).expect("valid reference");
                    engine.complete(now, reference, "arg", &text)
                }
            },
            11 => engine.request(
                now,
                ["x/unknown", "resources/read", "prompts/get", "tools/call"][usize::from(kind >> 4 & 3)],
                None,
            ),
            12 => engine.request_with_progress(now, "tools/list", None),
            _ => {
                // The application's own notification (the harness accepts this one in the output).
                if let Err(SendError::Closed) = engine.notify("notifications/roots/list_changed", None) {
                    assert!(self.eof, "a notification refused before the end of input");
                }
                return;
            }
        };
        let engine = &*self.client;
        match result {
            Ok(key) => {
                assert!(engine.era().is_some(), "a request sent before the connection");
                assert!(!self.host().keys.contains_key(&key.id()), "key {} handed out twice", key.id());
                assert_eq!(engine.awaiting_answers(), before + 1, "a request sent but not awaited");
                self.app_keys.push(key);
                self.client.handler_mut().keys.insert(key.id(), KeyState::default());
            }
            Err(SendError::NotAvailable) => assert!(engine.era().is_none(), "NotAvailable once connected"),
            Err(SendError::TooManyRequests) => {
                assert_eq!(engine.awaiting_answers(), N, "TooManyRequests with free slots")
            }
            Err(SendError::Closed) => assert!(self.eof, "Closed before the end of input"),
            Err(SendError::Full | SendError::TooLarge) => {}
            Err(error) => panic!("unexpected send error {error:?}"),
        }
    }

    pub(super) fn cancel(&mut self, index: usize) {
        let Some(&key) = self.app_keys.get(index % self.app_keys.len().max(1)) else { return };
        let state = self.host().keys[&key.id()];
        let open = state.outcomes == 0 && !state.cancelled;
        let cancelled = self.client.cancel(key);
        assert_eq!(
            cancelled,
            open && !self.client.is_finished(),
            "cancel({}) returned {cancelled}; the key had {} outcomes, cancelled: {}",
            key.id(),
            state.outcomes,
            state.cancelled
        );
        if cancelled {
            self.client.handler_mut().keys.get_mut(&key.id()).expect("a known key").cancelled = true;
        }
    }

    pub(super) fn step(&mut self, input: &mut Input<'_>) {
        match input.byte() % 16 {
            op::ANSWER | op::ANSWER_TOO => self.answer(input),
            op::SERVER_REQUEST => {
                let flags = input.byte();
                let line = self.generator.server_request(input);
                self.queue_line(&line, flags);
            }
            op::NOTIFICATION => {
                let flags = input.byte();
                let last = self.last_sent();
                let line = self.generator.notification(last, input);
                self.queue_line(&line, flags);
            }
            op::RAW => {
                let raw = input.chunk();
                self.queued.extend_from_slice(raw);
            }
            op::CORRUPT => {
                let which = input.byte();
                let mut line = match which % 3 {
                    0 => {
                        let target = self.answer_target(input);
                        self.generator.answer(&target, input)
                    }
                    1 => self.generator.server_request(input),
                    _ => {
                        let last = self.last_sent();
                        self.generator.notification(last, input)
                    }
                }
                .into_bytes();
                let at = input.below(line.len().max(1));
                match input.byte() % 3 {
                    0 => line.truncate(at),
                    1 => line[at] = input.byte(),
                    _ => line.insert(at, input.byte()),
                }
                self.queued.extend_from_slice(&line);
                self.queued.push(b'\n');
            }
            op::DELIVER => {
                let limit = usize::from(input.u16());
                self.deliver(limit);
            }
            op::DELIVER_SPARE => {
                let limit = usize::from(input.byte()) * 8;
                let overcommit = usize::from(input.byte() & 3);
                self.deliver_with_spare(limit, overcommit);
            }
            op::DELIVER_BYTES => {
                for _ in 0..input.below(64) {
                    self.deliver(1);
                    self.check();
                }
            }
            op::TRANSMIT => {
                let n = input.u16();
                if n == u16::MAX {
                    self.flush();
                } else {
                    self.transmit(usize::from(n));
                }
            }
            op::CLOCK => {
                let step = input.u16();
                self.clock(step);
            }
            op::REQUEST => self.request(input),
            op::CANCEL => {
                let index = input.below(256);
                self.cancel(index);
            }
            op::INPUT_MODE => {
                let byte = input.byte();
                if byte & 4 == 0 {
                    self.client.handler_mut().mode = InputMode::from_byte(byte);
                } else {
                    let now = self.now();
                    let connecting = self.connecting;
                    match self.client.connect(now) {
                        Ok(()) => {
                            assert!(!connecting, "connect accepted twice");
                            self.connecting = true;
                        }
                        Err(SendError::NotAvailable) => assert!(connecting, "connect refused before it started"),
                        Err(SendError::Closed) => assert!(self.eof),
                        Err(SendError::Full | SendError::TooLarge) => {}
                        Err(error) => panic!("unexpected connect error {error:?}"),
                    }
                }
            }
            op::EOF => {
                if input.byte().is_multiple_of(4) {
                    self.end_of_input();
                }
            }
            op::SETTLE => {
                self.flush();
                self.deliver_all();
            }
            _ => unreachable!("an operation code below 16"),
        }
        self.check();
    }
}
