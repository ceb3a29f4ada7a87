#!/usr/bin/env node
// Interop test: the official TypeScript MCP SDK as a client of an MCP stdio server.
//
// Usage: node ts_client.mjs --sdk v1|v2 --era legacy|modern|auto [--profile full|typical] -- SERVER_COMMAND [ARGS...]
//        node ts_client.mjs --sdk v1|v2 --era ERA --transport http|sse --url URL   (a running server:
//        Streamable HTTP, or the 2024-11-05 HTTP+SSE transport at its /sse endpoint)
//
//   --sdk v1  @modelcontextprotocol/sdk (1.x): `Client` + `StdioClientTransport`, legacy era only
//             (its newest protocol version is 2025-11-25).
//   --sdk v2  @modelcontextprotocol/client (2.x): `Client` + `StdioClientTransport`.
//             legacy: default `versionNegotiation` (mode 'legacy': plain initialize handshake).
//             modern: `versionNegotiation: { mode: { pin: '2026-07-28' } }`: server/discover, no fallback.
//             auto:   `versionNegotiation: { mode: 'auto' }`: probe server/discover, fall back to initialize;
//                     a dual-era server must come out modern.
//
//   --profile typical: the server is the example device built with the firmware's typical profile
//             (both eras, tools, resources, prompts, logging): completion and subscriptions must be
//             answered -32601 and not declared, the tools that ask the client for input -32603.
//
// The packages are loaded from the npm tree that scripts/install-peers puts in
// .cache/peers/npm/node_modules (override with INTEROP_NODE_MODULES). Prints one line per check
// and `N passed, M failed` last; exits non-zero on any failure.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = resolve(process.env.INTEROP_NODE_MODULES ?? join(HERE, '..', '..', '.cache', 'peers', 'npm', 'node_modules'));
const requirePeer = createRequire(join(NODE_MODULES, 'noop.js'));

// The mcp-device contract (keep in sync with checks.py).
const TOOL_NAMES = ['echo', 'read_temperature', 'set_led', 'get_uptime', 'calibrate', 'enable_blink', 'factory_reset', 'explain_status', 'export_target'];
const RESOURCES = { 'device://status': 'application/json', 'device://calibration': 'application/octet-stream' };
const SERVER_NAME = 'mcp-device';
const ECHO_MESSAGE = 'hello from interop \u2713 "quoted" \\ back';
const SYMPTOM = 'LED blinks red twice';
const MISSING_RESOURCE_CODE = { legacy: -32002, modern: -32602 };
const REQUEST_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 120_000;

function usage(msg) {
    console.error(`ts_client.mjs: ${msg}\nusage: node ts_client.mjs --sdk v1|v2 --era legacy|modern|auto -- SERVER_COMMAND [ARGS...]`);
    process.exit(2);
}

function parseArgs(argv) {
    const out = { sdk: undefined, era: undefined, command: [], url: undefined, transport: 'stdio', profile: 'full' };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--sdk') out.sdk = argv[++i];
        else if (a === '--era') out.era = argv[++i];
        else if (a === '--url') out.url = argv[++i];
        else if (a === '--transport') out.transport = argv[++i];
        else if (a === '--profile') out.profile = argv[++i];
        else if (a === '--') { out.command = argv.slice(i + 1); break; }
        else usage(`unknown argument ${a}`);
    }
    if (!['v1', 'v2'].includes(out.sdk)) usage('--sdk must be v1 or v2');
    if (!['legacy', 'modern', 'auto'].includes(out.era)) usage('--era must be legacy, modern or auto');
    if (out.sdk === 'v1' && out.era !== 'legacy') usage('SDK v1 has only the legacy era (its newest version is 2025-11-25)');
    if (!['stdio', 'http', 'sse'].includes(out.transport)) usage('--transport must be stdio, http or sse');
    if (!['full', 'typical'].includes(out.profile)) usage('--profile must be full or typical');
    if (out.transport === 'stdio' ? out.command.length === 0 : !out.url) usage('missing server command or --url');
    return out;
}

class Checks {
    constructor(label) { this.label = label; this.passed = 0; this.failed = 0; }
    check(name, ok, detail = '') {
        if (ok) { this.passed++; console.log(`  ok   ${name}`); return true; }
        this.failed++;
        let msg = typeof detail === 'string' ? detail : JSON.stringify(detail);
        if (msg && msg.length > 600) msg = msg.slice(0, 600) + '...';
        console.log(`  FAIL ${name}: ${msg}`);
        return false;
    }
    equal(name, got, want) {
        return this.check(name, JSON.stringify(got) === JSON.stringify(want), `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    }
    crash(name, err) {
        this.failed++;
        console.log(`  FAIL ${name}: unexpected ${err?.name ?? 'error'}: ${err?.message ?? err}`);
        if (err?.stack) console.log(err.stack.split('\n').slice(0, 8).join('\n'));
    }
    finish() {
        const ok = this.failed === 0 && this.passed > 0;
        console.log(`[${this.label}] ${ok ? 'OK' : 'FAILED'}`);
        console.log(`${this.passed} passed, ${this.failed} failed`);
        return ok ? 0 : 1;
    }
}

const isInt = (v) => Number.isInteger(v);
const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);
const texts = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const versionOf = (name) => JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8')).version;

function loadSdk(sdk) {
    if (sdk === 'v1') {
        const { Client } = requirePeer('@modelcontextprotocol/sdk/client/index.js');
        const { StdioClientTransport } = requirePeer('@modelcontextprotocol/sdk/client/stdio.js');
        const { StreamableHTTPClientTransport } = requirePeer('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { SSEClientTransport } = requirePeer('@modelcontextprotocol/sdk/client/sse.js');
        return { Client, StdioClientTransport, StreamableHTTPClientTransport, SSEClientTransport, pkg: `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}` };
    }
    const { Client, ResourceNotFoundError, StreamableHTTPClientTransport, SSEClientTransport } = requirePeer('@modelcontextprotocol/client');
    const { StdioClientTransport } = requirePeer('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, SSEClientTransport, ResourceNotFoundError, pkg: `@modelcontextprotocol/client@${versionOf('@modelcontextprotocol/client')}` };
}

async function expectError(c, name, wantCode, promise) {
    let got;
    try {
        got = await promise;
    } catch (e) {
        if (typeof e?.code === 'number') return c.equal(`${name}: JSON-RPC error code`, e.code, wantCode);
        return c.check(`${name}: JSON-RPC error code`, false, `expected error ${wantCode}, got ${e?.name}: ${e?.message}`);
    }
    return c.check(`${name}: JSON-RPC error code`, false, `expected error ${wantCode}, got result ${JSON.stringify(got)}`);
}

async function exercise(c, client, opts) {
    const { sdk } = opts;
    const era = opts.era === 'auto' ? 'modern' : opts.era; // a dual-era server must come out modern
    const ro = { timeout: REQUEST_TIMEOUT_MS };
    // v1: callTool(params, resultSchema?, options?); v2: callTool(params, options?)
    const callTool = (params) => (sdk === 'v1' ? client.callTool(params, undefined, ro) : client.callTool(params, ro));

    // --- connection ---------------------------------------------------------------------
    c.equal('connect: serverInfo.name', client.getServerVersion()?.name, SERVER_NAME);
    if (sdk === 'v2') {
        c.equal('connect: protocol era', client.getProtocolEra(), era);
        c.equal('connect: negotiated version', client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
    }
    const caps = client.getServerCapabilities() ?? {};
    c.check('capabilities: tools, resources, prompts', !!(caps.tools && caps.resources && caps.prompts), caps);
    if (opts.profile === 'typical') {
        c.check('capabilities (typical profile): no completions, no resource subscriptions',
            caps.completions === undefined && !caps.resources?.subscribe, caps);
    }

    // --- tools --------------------------------------------------------------------------
    const tools = (await client.listTools({}, ro)).tools;
    c.equal('tools/list: names in order', tools.map((t) => t.name), TOOL_NAMES);
    for (const t of tools) c.equal(`tools/list: ${t.name}.inputSchema.type`, t.inputSchema?.type, 'object');

    let r = await callTool({ name: 'echo', arguments: { message: ECHO_MESSAGE } });
    c.check('echo: not isError', !r.isError, r);
    c.equal('echo: one text content equal to the message', texts(r), [ECHO_MESSAGE]);
    c.equal('echo: content length', r.content?.length, 1);

    r = await callTool({ name: 'read_temperature', arguments: {} });
    let sc = r.structuredContent;
    c.check('read_temperature: not isError', !r.isError, r);
    c.check('read_temperature: has text content', texts(r).length >= 1, r);
    c.check('read_temperature: structuredContent {sensor: board, celsius: number}',
        isPlainObject(sc) && sc.sensor === 'board' && isNumber(sc.celsius), sc);

    r = await callTool({ name: 'read_temperature', arguments: { sensor: 'cpu' } });
    sc = r.structuredContent;
    c.check('read_temperature(cpu): structuredContent {sensor: cpu, celsius: number}',
        isPlainObject(sc) && sc.sensor === 'cpu' && isNumber(sc.celsius), sc);

    for (const on of [true, false]) {
        r = await callTool({ name: 'set_led', arguments: { on } });
        c.check(`set_led(${on}): not isError`, !r.isError, r);
        c.equal(`set_led(${on}): structuredContent`, r.structuredContent, { on });
    }

    const r1 = await callTool({ name: 'get_uptime', arguments: {} });
    const r2 = await callTool({ name: 'get_uptime', arguments: {} });
    const u1 = r1.structuredContent?.uptimeMs;
    const u2 = r2.structuredContent?.uptimeMs;
    c.check('get_uptime: structuredContent {uptimeMs: integer >= 0}', isInt(u1) && u1 >= 0, r1.structuredContent);
    c.equal('get_uptime: keys exactly [uptimeMs]', Object.keys(r1.structuredContent ?? {}), ['uptimeMs']);
    c.check('get_uptime: does not go backwards', isInt(u1) && isInt(u2) && u2 >= u1, [u1, u2]);

    await expectError(c, 'tools/call unknown tool', -32602, callTool({ name: 'no_such_tool', arguments: {} }));

    r = await callTool({ name: 'echo', arguments: {} });
    c.check('echo without message: isError true', r.isError === true, r);

    // --- resources ----------------------------------------------------------------------
    const resources = (await client.listResources({}, ro)).resources;
    const byUri = Object.fromEntries(resources.map((x) => [x.uri, x]));
    for (const [uri, mime] of Object.entries(RESOURCES)) {
        if (c.check(`resources/list: has ${uri}`, uri in byUri, Object.keys(byUri))) {
            c.equal(`resources/list: ${uri} mimeType`, byUri[uri].mimeType, mime);
        }
    }

    let rr = await client.readResource({ uri: 'device://status' }, ro);
    c.equal('read device://status: one content', rr.contents?.length, 1);
    const st = rr.contents?.[0];
    if (c.check('read device://status: text contents', typeof st?.text === 'string', st)) {
        c.equal('read device://status: uri', st.uri, 'device://status');
        c.equal('read device://status: mimeType', st.mimeType, 'application/json');
        let doc;
        try { doc = JSON.parse(st.text); } catch (e) { c.check('read device://status: text is JSON', false, `${e.message}: ${st.text}`); }
        if (doc !== undefined) {
            c.check('read device://status: {led: bool, uptimeMs: int}',
                isPlainObject(doc) && typeof doc.led === 'boolean' && isInt(doc.uptimeMs), doc);
            c.equal('read device://status: led reflects set_led(false)', doc.led, false);
        }
    }

    rr = await client.readResource({ uri: 'device://calibration' }, ro);
    const cal = rr.contents?.[0];
    if (c.check('read device://calibration: blob contents', typeof cal?.blob === 'string', cal)) {
        c.equal('read device://calibration: mimeType', cal.mimeType, 'application/octet-stream');
        const valid = /^[A-Za-z0-9+/]*={0,2}$/.test(cal.blob) && cal.blob.length % 4 === 0;
        c.check('read device://calibration: valid non-empty base64', valid && Buffer.from(cal.blob, 'base64').length > 0, cal.blob.slice(0, 80));
    }

    if (sdk === 'v1') {
        await expectError(c, `read device://missing (${era})`, MISSING_RESOURCE_CODE[era], client.readResource({ uri: 'device://missing' }, ro));
    } else {
        // SDK v2 folds -32002 and -32602-with-data.uri into ResourceNotFoundError (whose .code is
        // always -32602), so the wire code is checked from the wiretap log instead (interop.py).
        let got;
        try { got = await client.readResource({ uri: 'device://missing' }, ro); } catch (e) { got = e; }
        c.check(`read device://missing (${era}): ResourceNotFoundError with uri`,
            opts.ResourceNotFoundError.isInstance(got) && got.uri === 'device://missing',
            got instanceof Error ? `${got.name} code=${got.code} data=${JSON.stringify(got.data)}: ${got.message}` : got);
    }

    // --- prompts ------------------------------------------------------------------------
    const prompts = (await client.listPrompts({}, ro)).prompts;
    const diag = prompts.find((p) => p.name === 'diagnose');
    if (c.check('prompts/list: has diagnose', !!diag, prompts.map((p) => p.name))) {
        const arg = (diag.arguments ?? []).find((a) => a.name === 'symptom');
        c.check('prompts/list: diagnose has required argument symptom', arg?.required === true, diag);
    }
    const gp = await client.getPrompt({ name: 'diagnose', arguments: { symptom: SYMPTOM } }, ro);
    const m0 = gp.messages?.[0];
    if (c.check('prompts/get diagnose: messages[0] is a user text message', m0?.role === 'user' && m0?.content?.type === 'text', gp)) {
        c.check('prompts/get diagnose: text contains the symptom', m0.content.text.includes(SYMPTOM), m0.content.text);
    }
}

// What the server sends unasked, through the client's handlers (installed before connecting).
function installHandlers(client, sdk) {
    const events = { logs: [], changed: 0, elicitations: 0, samples: [], roots: 0, updated: [] };
    const elicit = async () => { events.elicitations++; return { action: 'accept', content: { confirm: true } }; };
    const sample = async (request) => {
        events.samples.push(request.params);
        return { role: 'assistant', model: 'interop-model', content: { type: 'text', text: 'all is well' } };
    };
    const roots = async () => { events.roots++; return { roots: [{ uri: 'file:///tmp/interop-root', name: 'interop' }] }; };
    const onLog = (n) => { events.logs.push(n.params); };
    const onChanged = () => { events.changed++; };
    const onUpdated = (n) => { events.updated.push(n.params); };
    if (sdk === 'v1') {
        const t = requirePeer('@modelcontextprotocol/sdk/types.js');
        client.setRequestHandler(t.ElicitRequestSchema, elicit);
        client.setRequestHandler(t.CreateMessageRequestSchema, sample);
        client.setRequestHandler(t.ListRootsRequestSchema, roots);
        client.setNotificationHandler(t.LoggingMessageNotificationSchema, onLog);
        client.setNotificationHandler(t.ToolListChangedNotificationSchema, onChanged);
        client.setNotificationHandler(t.ResourceUpdatedNotificationSchema, onUpdated);
    } else {
        client.setRequestHandler('elicitation/create', elicit);
        client.setRequestHandler('sampling/createMessage', sample);
        client.setRequestHandler('roots/list', roots);
        client.setNotificationHandler('notifications/message', onLog);
        client.setNotificationHandler('notifications/tools/list_changed', onChanged);
        client.setNotificationHandler('notifications/resources/updated', onUpdated);
    }
    return events;
}

// Templates, completion, logging, progress, list changes and elicitation. In the typical profile,
// completion, subscriptions and input from the client are checked to be left out.
async function exerciseSurface(c, client, opts, events) {
    const typical = opts.profile === 'typical';
    const { sdk } = opts;
    const era = opts.era === 'auto' ? 'modern' : opts.era;
    const ro = { timeout: REQUEST_TIMEOUT_MS };
    const callTool = (params, extra = {}) =>
        (sdk === 'v1' ? client.callTool(params, undefined, { ...ro, ...extra }) : client.callTool(params, { ...ro, ...extra }));

    const templates = (await client.listResourceTemplates({}, ro)).resourceTemplates;
    c.equal('resources/templates/list: the sensor template', templates.map((t) => t.uriTemplate), ['device://sensor/{name}']);
    const rr = await client.readResource({ uri: 'device://sensor/cpu' }, ro);
    let doc;
    try { doc = JSON.parse(rr.contents?.[0]?.text); } catch { doc = undefined; }
    c.check('read device://sensor/cpu (template): {sensor: cpu, celsius: number}',
        isPlainObject(doc) && doc.sensor === 'cpu' && isNumber(doc.celsius), rr);
    if (typical) {
        await expectError(c, 'completion/complete (no completion in the profile)', -32601,
            client.complete({ ref: { type: 'ref/prompt', name: 'diagnose' }, argument: { name: 'symptom', value: 'o' } }, ro));
    } else {
        let done = await client.complete({ ref: { type: 'ref/resource', uri: 'device://sensor/{name}' }, argument: { name: 'name', value: 'c' } }, ro);
        c.equal('completion/complete template variable: values', done.completion.values, ['cpu']);
        done = await client.complete({ ref: { type: 'ref/prompt', name: 'diagnose' }, argument: { name: 'symptom', value: 'over' } }, ro);
        c.equal('completion/complete prompt argument: values', done.completion.values, ['overheating']);
    }

    if (era === 'legacy') {
        await client.setLoggingLevel('info', ro);
        const before = events.logs.length;
        await callTool({ name: 'read_temperature', arguments: {} });
        const logs = events.logs.slice(before);
        c.check('read_temperature: logged through notifications/message (logger sensors, level info)',
            logs.length === 1 && logs[0].logger === 'sensors' && logs[0].level === 'info', logs);
        await client.setLoggingLevel('error', ro);
        const quiet = events.logs.length;
        await callTool({ name: 'read_temperature', arguments: {} });
        c.equal('read_temperature after setLevel(error): no log message', events.logs.length - quiet, 0);
    }

    const progress = [];
    const r = await callTool({ name: 'calibrate', arguments: {} }, { onprogress: (p) => progress.push([p.progress, p.total]) });
    // Not a check of ours: the TypeScript SDKs run notification handlers in a microtask but settle a
    // response at once, so progress that arrives in the same read as the answer (as it does from a
    // server that calibrates at once) is dropped by the SDK. interop.py checks it on the wire.
    console.log(`  note calibrate: the SDK delivered ${progress.length} of 4 progress notifications`);
    c.equal('calibrate: structuredContent', r.structuredContent, { steps: 4 });

    if (era === 'legacy') {
        await callTool({ name: 'enable_blink', arguments: { enabled: true } });
        await new Promise((ok) => setTimeout(ok, 100));
        c.equal('enable_blink: notifications/tools/list_changed', events.changed, 1);
        const names = (await client.listTools({}, ro)).tools.map((t) => t.name);
        c.check('tools/list after enable_blink: has blink_led', names.includes('blink_led'), names);
        c.equal('blink_led: text', texts(await callTool({ name: 'blink_led', arguments: { times: 2 } })), ['blinked 2 times']);
        await callTool({ name: 'enable_blink', arguments: { enabled: false } });
    }

    if (typical) {
        for (const tool of ['factory_reset', 'explain_status', 'export_target']) {
            await expectError(c, `${tool} (asks for input: no input in the profile)`, -32603, callTool({ name: tool, arguments: {} }));
        }
        c.equal('the client was asked nothing', [events.elicitations, events.samples.length, events.roots], [0, 0, 0]);
        if (era === 'legacy') {
            await expectError(c, 'resources/subscribe (no subscriptions in the profile)', -32601,
                client.subscribeResource({ uri: 'device://status' }, ro));
        }
        return;
    }

    // The factory reset asks the user first: legacy through elicitation/create, 2026-07-28 through
    // the SDK's multi-round-trip driver (the same handler answers both).
    const reset = await callTool({ name: 'factory_reset', arguments: {} });
    c.equal('factory_reset: the user was asked once', events.elicitations, 1);
    c.equal('factory_reset: done after the confirmation', texts(reset), ['factory settings restored']);

    // Sampling and roots, asked of the client the same two ways.
    const explained = await callTool({ name: 'explain_status', arguments: {} });
    c.equal('explain_status: the model was asked once', events.samples.length, 1);
    c.check('explain_status: the sampling request carries the live status',
        (events.samples[0]?.messages?.[0]?.content?.text ?? '').includes('LED'), events.samples[0]);
    c.equal("explain_status: the model's answer", texts(explained), ['the model says: all is well']);
    const target = await callTool({ name: 'export_target', arguments: {} });
    c.equal('export_target: the roots were asked once', events.roots, 1);
    c.equal('export_target: names the first root', texts(target), ['the calibration would be exported under file:///tmp/interop-root']);

    if (era === 'legacy') {
        await client.subscribeResource({ uri: 'device://status' }, ro);
        await callTool({ name: 'set_led', arguments: { on: true } });
        await new Promise((ok) => setTimeout(ok, 100));
        c.check('resources/subscribe device://status: updated when the LED changes',
            events.updated.length === 1 && events.updated[0].uri === 'device://status', events.updated);
        await client.unsubscribeResource({ uri: 'device://status' }, ro);
        await callTool({ name: 'set_led', arguments: { on: false } });
        await new Promise((ok) => setTimeout(ok, 100));
        c.equal('resources/unsubscribe: no update after', events.updated.length, 1);
    }
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const { Client, StdioClientTransport, StreamableHTTPClientTransport, SSEClientTransport, ResourceNotFoundError, pkg } = loadSdk(opts.sdk);
    opts.ResourceNotFoundError = ResourceNotFoundError;
    const c = new Checks(`ts-sdk-${opts.sdk} ${opts.era}`);
    const where = opts.transport === 'stdio' ? opts.command.join(' ') : `${opts.transport} ${opts.url}`;
    console.log(`== TypeScript SDK ${pkg} client on node ${process.version}, ${opts.era} era, server: ${where}`);

    const clientOptions = { capabilities: { elicitation: {}, sampling: {}, roots: {} } };
    if (opts.era === 'modern') clientOptions.versionNegotiation = { mode: { pin: '2026-07-28' } };
    else if (opts.era === 'auto') clientOptions.versionNegotiation = { mode: 'auto' };
    else if (opts.sdk === 'v2') clientOptions.versionNegotiation = { mode: 'legacy' };
    const client = new Client({ name: `interop-ts-${opts.sdk}`, version: '0.0.0' }, clientOptions);
    const transport = opts.transport === 'http' ? new StreamableHTTPClientTransport(new URL(opts.url))
        : opts.transport === 'sse' ? new SSEClientTransport(new URL(opts.url))
        : new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
    const events = installHandlers(client, opts.sdk);

    let timer;
    const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`run did not finish within ${RUN_TIMEOUT_MS} ms`)), RUN_TIMEOUT_MS);
    });
    try {
        await Promise.race([
            (async () => {
                await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
                await exercise(c, client, opts);
                await exerciseSurface(c, client, opts, events);
            })(),
            deadline,
        ]);
    } catch (e) {
        c.crash('client run', e);
    } finally {
        clearTimeout(timer);
        try { await client.close(); } catch { /* already gone */ }
    }
    process.exitCode = c.finish();
}

main().catch((e) => { console.error(e); process.exit(1); });
