#!/usr/bin/env node
// The TypeScript SDK half of typed_tools.py: connects an official TypeScript SDK client to the typed
// tools server (router/examples/structured_output.rs) over stdio, lists the tools, makes the calls
// typed_tools.py asks for and prints what the client showed as one line `OBSERVED <json>`:
//   {"sdk", "version": negotiated protocol version, "tools": [...], "calls": {label: {"result": ...} |
//    {"error": {"code", "message", "name"}}}, "crash": null | "..."}
// It checks nothing itself: typed_tools.py checks the observations (the same checks for every client).
//
// Usage: node typed_tools.mjs --sdk v1|v2 --era legacy|modern --calls JSON -- SERVER_COMMAND [ARGS...]
//   --sdk v1  @modelcontextprotocol/sdk (1.x), legacy only (its newest version is 2025-11-25)
//   --sdk v2  @modelcontextprotocol/client (2.x): versionNegotiation {mode: 'legacy'} or {mode: {pin: '2026-07-28'}}
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
    const out = { sdk: undefined, era: undefined, calls: [], command: [] };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--sdk') out.sdk = argv[++i];
        else if (a === '--era') out.era = argv[++i];
        else if (a === '--calls') out.calls = JSON.parse(argv[++i]);
        else if (a === '--') { out.command = argv.slice(i + 1); break; }
        else throw new Error(`unknown argument ${a}`);
    }
    if (!['v1', 'v2'].includes(out.sdk)) throw new Error('--sdk must be v1 or v2');
    if (!['legacy', 'modern'].includes(out.era)) throw new Error('--era must be legacy or modern');
    if (out.sdk === 'v1' && out.era !== 'legacy') throw new Error('SDK v1 has only the legacy era');
    if (out.command.length === 0) throw new Error('missing server command after --');
    return out;
}

const versionOf = (name) => JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8')).version;

function loadSdk(sdk) {
    if (sdk === 'v1') {
        const { Client } = requirePeer('@modelcontextprotocol/sdk/client/index.js');
        const { StdioClientTransport } = requirePeer('@modelcontextprotocol/sdk/client/stdio.js');
        return { Client, StdioClientTransport, pkg: `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}` };
    }
    const { Client } = requirePeer('@modelcontextprotocol/client');
    const { StdioClientTransport } = requirePeer('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport, pkg: `@modelcontextprotocol/client@${versionOf('@modelcontextprotocol/client')}` };
}

const errorOf = (e) => ({ code: typeof e?.code === 'number' ? e.code : null, message: String(e?.message ?? e), name: e?.name ?? null });

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const { Client, StdioClientTransport, pkg } = loadSdk(opts.sdk);
    const observed = { sdk: pkg, node: process.version, version: null, tools: null, calls: {}, crash: null };
    const clientOptions = { capabilities: {} };
    if (opts.sdk === 'v2') clientOptions.versionNegotiation = { mode: opts.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' };
    const client = new Client({ name: `typed-tools-ts-${opts.sdk}`, version: '0.0.0' }, clientOptions);
    const transport = new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
    const ro = { timeout: REQUEST_TIMEOUT_MS };
    // v1: callTool(params, resultSchema?, options?); v2: callTool(params, options?)
    const callTool = (params) => (opts.sdk === 'v1' ? client.callTool(params, undefined, ro) : client.callTool(params, ro));
    let timer;
    const deadline = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`run did not finish within ${RUN_TIMEOUT_MS} ms`)), RUN_TIMEOUT_MS);
    });
    try {
        await Promise.race([(async () => {
            await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
            // v1 does not show the negotiated version; typed_tools.py reads it from the wire for every client.
            if (opts.sdk === 'v2') observed.version = client.getNegotiatedProtocolVersion();
            observed.tools = (await client.listTools({}, ro)).tools;
            for (const { label, name, arguments: args } of opts.calls) {
                try {
                    observed.calls[label] = { result: await callTool({ name, arguments: args }) };
                } catch (e) {
                    observed.calls[label] = { error: errorOf(e) };
                }
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
