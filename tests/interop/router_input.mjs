#!/usr/bin/env node
// The TypeScript SDK v2 half of router_input.py: connects an official TypeScript SDK v2 client
// (@modelcontextprotocol/client) to the router's ask example (router/examples/ask.rs) over stdio, with
// handlers for the questions the server asks (elicitation/create, roots/list, sampling/createMessage:
// in 2025-11-25 as requests from the server, in 2026-07-28 through the SDK's input_required driver,
// which runs the same handlers and retries the call), makes the calls router_input.py asks for and
// prints what the client showed as one line `OBSERVED <json>`:
//   {"sdk", "node", "version": negotiated protocol version, "calls": [{"label", "result" | "error",
//    "asked": {"elicit": n, "roots": n, "sample": n} (handler runs during that call),
//    "seen": [{"kind", "params"}] (what the handlers got, in order)}], "crash": null | "..."}
// It checks nothing itself: router_input.py checks the observations (the same checks as for its
// Python SDK client).
//
// Usage: node router_input.mjs --era legacy|modern --handlers elicit,roots,sample --answers JSON
//            --calls JSON -- SERVER_COMMAND [ARGS...]
//   --era legacy    versionNegotiation {mode: 'legacy'} (initialize, 2025-11-25)
//   --era modern    versionNegotiation {mode: {pin: '2026-07-28'}}
//   --handlers      the handlers to register, each with its capability (none: a bare client)
//   --answers       {"confirm": [ElicitResult, ...] (in turn, by call), "name": ElicitResult,
//                    "roots": [Root, ...], "sample": CreateMessageResult}
// The packages come from .cache/peers/npm/node_modules (scripts/install-peers; INTEROP_NODE_MODULES overrides).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = resolve(process.env.INTEROP_NODE_MODULES ?? join(HERE, '..', '..', '.cache', 'peers', 'npm', 'node_modules'));
const requirePeer = createRequire(join(NODE_MODULES, 'noop.js'));
const REQUEST_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 60_000;

function parseArgs(argv) {
    const out = { era: undefined, handlers: [], answers: {}, calls: [], command: [] };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--era') out.era = argv[++i];
        else if (a === '--handlers') out.handlers = argv[++i].split(',').filter(Boolean);
        else if (a === '--answers') out.answers = JSON.parse(argv[++i]);
        else if (a === '--calls') out.calls = JSON.parse(argv[++i]);
        else if (a === '--') { out.command = argv.slice(i + 1); break; }
        else throw new Error(`unknown argument ${a}`);
    }
    if (!['legacy', 'modern'].includes(out.era)) throw new Error('--era must be legacy or modern');
    if (out.command.length === 0) throw new Error('missing server command after --');
    return out;
}

const versionOf = (name) => JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8')).version;
const errorOf = (e) => ({ code: typeof e?.code === 'number' ? e.code : null, message: String(e?.message ?? e), name: e?.name ?? null });

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const { Client } = requirePeer('@modelcontextprotocol/client');
    const { StdioClientTransport } = requirePeer('@modelcontextprotocol/client/stdio');
    const pkg = `@modelcontextprotocol/client@${versionOf('@modelcontextprotocol/client')}`;
    const observed = { sdk: pkg, node: process.version, version: null, calls: [], crash: null };

    const capabilities = {};
    if (opts.handlers.includes('elicit')) capabilities.elicitation = { form: {} };
    if (opts.handlers.includes('roots')) capabilities.roots = {};
    if (opts.handlers.includes('sample')) capabilities.sampling = {};
    const client = new Client({ name: 'router-input-ts-v2', version: '0.0.0' }, {
        capabilities,
        versionNegotiation: { mode: opts.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
    });
    let asked = { elicit: 0, roots: 0, sample: 0 };
    let seen = [];
    let confirms = 0;
    const { answers } = opts;
    if (opts.handlers.includes('elicit')) {
        client.setRequestHandler('elicitation/create', async (request) => {
            asked.elicit++;
            seen.push({ kind: 'elicit', params: request.params });
            if ('confirm' in (request.params.requestedSchema?.properties ?? {})) {
                return answers.confirm[confirms++ % answers.confirm.length];
            }
            return answers.name;
        });
    }
    if (opts.handlers.includes('roots')) {
        client.setRequestHandler('roots/list', async () => {
            asked.roots++;
            seen.push({ kind: 'roots', params: {} });
            return { roots: answers.roots };
        });
    }
    if (opts.handlers.includes('sample')) {
        client.setRequestHandler('sampling/createMessage', async (request) => {
            asked.sample++;
            seen.push({ kind: 'sample', params: request.params });
            return answers.sample;
        });
    }

    const transport = new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
    let timer;
    const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`run did not finish within ${RUN_TIMEOUT_MS} ms`)), RUN_TIMEOUT_MS);
    });
    try {
        await Promise.race([(async () => {
            await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
            observed.version = client.getNegotiatedProtocolVersion();
            for (const { label, name, arguments: args } of opts.calls) {
                asked = { elicit: 0, roots: 0, sample: 0 };
                seen = [];
                const call = { label };
                try {
                    call.result = await client.callTool({ name, arguments: args }, { timeout: REQUEST_TIMEOUT_MS });
                } catch (e) {
                    call.error = errorOf(e);
                }
                call.asked = asked;
                call.seen = seen;
                observed.calls.push(call);
            }
        })(), deadline]);
    } catch (e) {
        observed.crash = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
    } finally {
        clearTimeout(timer);
        try { await client.close(); } catch { /* already gone */ }
    }
    console.log(`OBSERVED ${JSON.stringify(observed)}`);
}

main().catch((e) => { console.error(e); console.log(`OBSERVED ${JSON.stringify({ crash: String(e?.stack ?? e) })}`); process.exit(1); });
