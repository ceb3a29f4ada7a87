#!/usr/bin/env node
// The official tasks client, @modelcontextprotocol/ext-tasks (the TypeScript requester of the
// 2026-07-28 extension io.modelcontextprotocol/tasks), against a server of ours over stdio: the
// router's tasks example (router/examples/tasks.rs) by default. The package drives a connected
// session through a port (ConnectedMcpSessionPort); this script's port frames each request as a
// 2026-07-28 request (`_meta` with the version, client info and capabilities, the extension
// declared) and writes it on the server's stdin, one JSON line each.
//
// Checks, each printed as `  ok   NAME` or `  FAIL NAME: detail`, then `ext-tasks interop: N passed, M failed`:
//   - a long-running tool (`wait`) becomes a task the package follows to its result;
//   - a tool that asks (`delete`) is input_required, the package answers through its input
//     handler with tasks/update, and the task completes with the answer's outcome;
//   - a never-ending tool (`forever`) is cancelled by the package (tasks/cancel) and reads cancelled;
//   - a plain call of an optional task tool without the extension: the package gets a plain result.
//
// With --era legacy the same against 2025-11-25's experimental tasks (the package's "v1"
// generation): the port opens a session with initialize, and the package asks for tasks with
// `params.task`, follows them with tasks/get, reads them with tasks/result and lists them with
// tasks/list; a question inside a task (`delete`) reaches the package as the server's
// elicitation/create on the tasks/result stream, naming the task (the port answers server requests
// through the package's handlers).
//
// Usage: node ext_tasks.mjs [--era modern|legacy] -- SERVER_COMMAND [ARGS...]
// The package comes from .cache/peers/npm/node_modules (scripts/install-peers, where the Inspector
// brings it, locked in tests/interop/package-lock.json; INTEROP_NODE_MODULES overrides).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = resolve(process.env.INTEROP_NODE_MODULES ?? join(HERE, '..', '..', '.cache', 'peers', 'npm', 'node_modules'));
const PACKAGE = join(NODE_MODULES, '@modelcontextprotocol', 'ext-tasks');
const VERSION = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version;
const TASKS = 'io.modelcontextprotocol/tasks';
const RUN_TIMEOUT_MS = 60_000;

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
    if (ok) {
        passed++;
        console.log(`  ok   ${name}`);
    } else {
        failed++;
        console.log(`  FAIL ${name}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`.slice(0, 600));
    }
}

/** A ConnectedMcpSessionPort over a child process's stdio, framing 2026-07-28 requests. */
class StdioPort {
    constructor(command, era) {
        this.era = era;
        this.endpointId = 'mcp-sansio-ext-tasks';
        this.taskCapabilities = { generation: 'v2', capabilities: {} };
        this.invalidated = false;
        this.pending = new Map();
        this.next = 1;
        this.notificationListeners = new Set();
        this.requestHandlers = new Set();
        this.notifications = [];
        this.serverRequests = [];
        this.sent = new Map();
        this.child = spawn(command[0], command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
        createInterface({ input: this.child.stdout }).on('line', (line) => this.receive(line));
    }

    /** Opens a 2025-11-25 session; the server's tasks capability becomes the port's. */
    async initialize() {
        const init = await this.send('initialize', {
            protocolVersion: '2025-11-25',
            capabilities: { elicitation: { form: {} } },
            clientInfo: { name: 'ext-tasks interop', version: VERSION },
        });
        this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
        this.taskCapabilities = { generation: 'v1', capabilities: init.result?.capabilities?.tasks ?? {} };
        return init;
    }

    frame(params, plain) {
        if (this.era === 'legacy') return params ?? {};
        const meta = { ...(params?._meta ?? {}) };
        const capabilities = { ...(meta['io.modelcontextprotocol/clientCapabilities'] ?? {}), elicitation: { form: {} } };
        if (plain) delete capabilities.extensions;
        else capabilities.extensions = { ...(capabilities.extensions ?? {}), [TASKS]: {} };
        meta['io.modelcontextprotocol/protocolVersion'] = '2026-07-28';
        meta['io.modelcontextprotocol/clientInfo'] = { name: 'ext-tasks interop', version: VERSION };
        meta['io.modelcontextprotocol/clientCapabilities'] = capabilities;
        return { ...(params ?? {}), _meta: meta };
    }

    send(method, params, plain = false) {
        const id = this.next++;
        this.sent.set(method, (this.sent.get(method) ?? 0) + 1);
        const message = { jsonrpc: '2.0', id, method, params: this.frame(params, plain) };
        return new Promise((resolve) => {
            this.pending.set(id, resolve);
            this.child.stdin.write(JSON.stringify(message) + '\n');
        });
    }

    async dispatch(request) {
        const answer = await this.send(request.method, request.params);
        return answer.error ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result };
    }

    receive(line) {
        const message = JSON.parse(line);
        if (message.id !== undefined && message.method === undefined) {
            const resolve = this.pending.get(message.id);
            this.pending.delete(message.id);
            resolve?.(message);
        } else if (message.method !== undefined && message.id === undefined) {
            this.notifications.push(message);
            for (const listener of this.notificationListeners) listener(message);
        } else if (message.method !== undefined) {
            this.answerServerRequest(message);
        }
    }

    /** A request from the server (a 2025-11-25 task's question): the first handler's answer, else an error. */
    async answerServerRequest(message) {
        this.serverRequests.push(message);
        let answer;
        for (const handler of this.requestHandlers) {
            answer = await handler({ request: message, requestContext: undefined });
            if (answer !== undefined) break;
        }
        answer ??= { kind: 'error', error: { code: -32601, message: `no handler for ${message.method}` } };
        const reply = answer.kind === 'result' ? { result: answer.result } : { error: answer.error };
        this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...reply }) + '\n');
    }

    onServerRequest(handler) {
        this.requestHandlers.add(handler);
        return () => this.requestHandlers.delete(handler);
    }
    onNotification(listener) {
        this.notificationListeners.add(listener);
        return () => this.notificationListeners.delete(listener);
    }
    onInvalidated() {
        return () => {};
    }
    close() {
        this.child.stdin.end();
        this.child.kill();
    }
}

async function main() {
    const argv = process.argv.slice(2);
    const at = argv.indexOf('--');
    if (at < 0 || at === argv.length - 1) throw new Error('usage: ext_tasks.mjs [--era modern|legacy] -- SERVER_COMMAND [ARGS...]');
    const eraAt = argv.indexOf('--era');
    const era = eraAt >= 0 && eraAt < at ? argv[eraAt + 1] : 'modern';
    if (!['modern', 'legacy'].includes(era)) throw new Error('--era must be modern or legacy');
    const { withTasks, resultFromTaskOutcome, createApplicationInputHandler } = await import(
        pathToFileURL(join(PACKAGE, 'dist', 'client', 'index.js')).href
    );
    console.log(`== @modelcontextprotocol/ext-tasks@${VERSION} on node ${process.version}, ${era} era, server: ${argv.slice(at + 1).join(' ')}`);
    const port = new StdioPort(argv.slice(at + 1), era);
    if (era === 'legacy') {
        const init = await port.initialize();
        const tasks = init.result?.capabilities?.tasks;
        check('legacy: the server declares tasks (list, cancel, tools/call)',
            tasks?.list !== undefined && tasks?.cancel !== undefined && tasks?.requests?.tools?.call !== undefined, init);
    }
    const asked = [];
    const onInputRequest = createApplicationInputHandler({
        elicitation: (request) => {
            asked.push(request);
            return { action: 'accept', content: { confirm: true } };
        },
        sampling: () => {
            throw new Error('no sampling here');
        },
        roots: () => ({ roots: [] }),
    });
    const session = withTasks(port, { onInputRequest });
    const text = (result) => result?.content?.find((block) => block.type === 'text')?.text;
    try {
        // A long-running tool: a task, followed to its result.
        // In 2025-11-25 the requester asks for the task (the package's default for an optional tool
        // is a plain call there).
        const asTask = era === 'legacy' ? { task: { preference: 'prefer' } } : {};
        const wait = await session.callTool('wait', { ms: 200 }, asTask);
        check('wait: answered as a task', wait.kind === 'task' && typeof wait.handle?.taskId === 'string', wait.kind);
        const waited = await wait.settle();
        check('wait: the task completes', waited.outcome?.status === 'completed', waited.outcome);
        check('wait: its result', text(resultFromTaskOutcome(waited.outcome)) === 'waited 200 ms', waited.outcome);

        // A tool that asks: input_required, answered through the input handler (2026-07-28:
        // tasks/update; 2025-11-25: the server's elicitation/create on the tasks/result stream,
        // naming the task).
        const deleting = await session.callTool('delete', {}, asTask);
        const deleted = await deleting.settle();
        check('delete: the question reached the input handler', asked.length === 1, asked);
        check('delete: completes with the answer\'s outcome', text(resultFromTaskOutcome(deleted.outcome)) === 'deleted',
            deleted.outcome);
        if (era === 'modern') {
            check('delete: the answer went back with tasks/update', (port.sent.get('tasks/update') ?? 0) >= 1,
                Object.fromEntries(port.sent));
        } else {
            const question = port.serverRequests.find((r) => r.method === 'elicitation/create');
            check('legacy delete: the question came as elicitation/create naming the task',
                question?.params?._meta?.['io.modelcontextprotocol/related-task']?.taskId === deleting.handle?.taskId
                    && deleting.handle?.taskId !== undefined, question);
            check('legacy: the result was read with tasks/result', (port.sent.get('tasks/result') ?? 0) >= 1,
                Object.fromEntries(port.sent));
            const page = await session.listTasks();
            check('legacy: tasks/list lists the task', page.tasks?.some((t) => t.taskId === wait.handle?.taskId), page);
        }

        // Cancellation: tasks/cancel, and the task reads cancelled.
        const forever = await session.callTool('forever', {}, asTask);
        const handle = forever.handle;
        check('forever: a task handle', typeof handle?.taskId === 'string', forever);
        if (handle?.taskId) {
            await session.cancelTask(handle.taskId);
            const view = await session.task(handle.taskId).snapshot();
            check('forever: cancelled', view.status === 'cancelled', view);
        }

        // Without the extension an optional task tool is a plain call.
        const plain = await port.send('tools/call', { name: 'wait', arguments: { ms: 1 } }, true);
        const complete = era === 'legacy' ? plain.result?.task === undefined : plain.result?.resultType === 'complete';
        check('a plain call without asking for a task', complete && text(plain.result) === 'waited 1 ms', plain);
        console.log(`  (requests the package sent: ${JSON.stringify(Object.fromEntries(port.sent))})`);
    } catch (error) {
        check('the client ran without an error', false, String(error?.stack ?? error));
    } finally {
        await session.close().catch(() => {});
        port.close();
    }
    console.log(`ext-tasks interop: ${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

setTimeout(() => {
    console.log(`  FAIL the run did not finish within ${RUN_TIMEOUT_MS / 1000}s`);
    console.log(`ext-tasks interop: ${passed} passed, ${failed + 1} failed`);
    process.exit(1);
}, RUN_TIMEOUT_MS).unref();

main();
