// A local OAuth 2.1 authorization server for tests/interop/oauth_e2e.py: oauth2-mock-server
// (real RS256 keys and JWKS, authorization code with PKCE, refresh tokens) with what an MCP client
// needs and the mock lacks, added around it:
//   - RFC 8414 metadata at /.well-known/oauth-authorization-server, naming a registration
//     endpoint and RFC 9207 `iss` in authorization responses (which this server then adds);
//   - dynamic client registration (RFC 7591) at /register: public clients (`none`);
//   - access tokens whose `aud` is the `resource` the client asked for (RFC 8707), whose `scope` is
//     what the user authorized, and whose lifetime is --ttl seconds (to see refreshes);
//   - counters at GET /__stats (registrations, authorizations, code and refresh grants, and
//     grants with a DPoP proof);
//   - with --dpop, DPoP (RFC 9449): ES256 proofs listed in the metadata, and a token request with a
//     proof gets a token bound to the proof's key (`cnf.jkt`, its RFC 7638 thumbprint) of type
//     `DPoP`. The proof is read, not verified (the resource server under test verifies them).
// Usage: node oauth_as.mjs [--ttl SECONDS] [--dpop]. Prints `ISSUER <url>` once listening; runs
// until its stdin closes.

import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The pinned peers of scripts/install-peers.
const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = resolve(HERE, '../../.cache/peers/npm/node_modules');
const { OAuth2Server } = createRequire(join(NODE_MODULES, 'noop.js'))('oauth2-mock-server');

const ttlAt = process.argv.indexOf('--ttl');
const ttl = ttlAt > 0 ? Number(process.argv[ttlAt + 1]) : 3600;
const dpop = process.argv.includes('--dpop');

// The RFC 7638 thumbprint of the public key in a DPoP proof's header (`undefined` without one).
function proofThumbprint(req) {
  const proof = req.headers?.dpop;
  if (!dpop || typeof proof !== 'string') return undefined;
  const jwk = JSON.parse(Buffer.from(proof.split('.')[0], 'base64url').toString()).jwk ?? {};
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
await server.start(0, '127.0.0.1');
const issuer = server.issuer.url;

const stats = { registrations: 0, authorizations: 0, codeGrants: 0, refreshGrants: 0, dpopGrants: 0, scopes: [] };
const codeScope = new Map(); // authorization code -> the scope authorized
const refreshScope = new Map(); // refresh token -> the scope it carries

server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  stats.authorizations += 1;
  const code = redirect.url.searchParams.get('code');
  codeScope.set(code, req.query.scope ?? '');
  stats.scopes.push(req.query.scope ?? '');
  redirect.url.searchParams.set('iss', issuer);
});

server.service.on('beforeTokenSigning', (token, req) => {
  const body = req.body ?? {};
  let scope = '';
  if (body.grant_type === 'authorization_code') scope = codeScope.get(body.code) ?? '';
  if (body.grant_type === 'refresh_token') scope = refreshScope.get(body.refresh_token) ?? '';
  token.payload.scope = scope;
  if (body.resource) token.payload.aud = body.resource;
  const now = Math.floor(Date.now() / 1000);
  token.payload.iat = now;
  token.payload.exp = now + ttl;
  const jkt = proofThumbprint(req);
  if (jkt) token.payload.cnf = { jkt };
});

server.service.on('beforeResponse', (response, req) => {
  const body = req.body ?? {};
  if (response.statusCode !== 200) return;
  let scope = '';
  if (body.grant_type === 'authorization_code') {
    stats.codeGrants += 1;
    scope = codeScope.get(body.code) ?? '';
    codeScope.delete(body.code);
  }
  if (body.grant_type === 'refresh_token') {
    if (!refreshScope.has(body.refresh_token)) {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant', error_description: 'unknown refresh token' };
      return;
    }
    stats.refreshGrants += 1;
    scope = refreshScope.get(body.refresh_token);
    refreshScope.delete(body.refresh_token); // rotated
  }
  response.body.scope = scope;
  response.body.expires_in = ttl;
  if (proofThumbprint(req)) {
    stats.dpopGrants += 1;
    response.body.token_type = 'DPoP';
  }
  delete response.body.id_token;
  if (response.body.refresh_token) refreshScope.set(response.body.refresh_token, scope);
});

const app = server.service.requestHandler;
app.get('/.well-known/oauth-authorization-server', (_req, res) => {
  res.json({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: ['mcp:read', 'mcp:write'],
    ...(dpop && { dpop_signing_alg_values_supported: ['ES256'] }),
  });
});
app.post('/register', (req, res) => {
  const body = req.body ?? {};
  if (!Array.isArray(body.redirect_uris) || body.redirect_uris.length === 0) {
    res.status(400).json({ error: 'invalid_redirect_uri' });
    return;
  }
  stats.registrations += 1;
  res.status(201).json({
    client_id: randomUUID(),
    client_name: body.client_name,
    redirect_uris: body.redirect_uris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
  });
});
app.get('/__stats', (_req, res) => res.json(stats));

console.log(`ISSUER ${issuer}`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await server.stop();
  process.exit(0);
});
