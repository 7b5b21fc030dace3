// A real authorization server for the tests: oidc-provider (OpenID certified), configured as a shop's identity
// provider would be for aftersales.
//
// One JSON argument: {"port": 0, "keys": "/path/keys.json", "machine": {"client_id", "client_secret"},
// "public": {"client_id", "redirect_uri"}, "account": {"login", "password"}}. It listens on 127.0.0.1:port with
// the issuer http://127.0.0.1:port and issues RFC 9068 JWT access tokens (RS256, typ at+jwt) for the RFC 8707
// resource a client names, with aud = that resource URL and the aftersales scopes it granted.
//
// Clients: a confidential machine client (client_credentials, client_secret_basic or _post), a preregistered
// public client (authorization code + PKCE, no secret), and open dynamic registration (RFC 7591) for hosts that
// register themselves. Login and consent are plain HTML forms a test can post without a browser.
//
// Signing keys live in the keys file (created on first start), so a restart keeps the issuer and its keys.
// POST /admin/rotate {"keep_old": true|false} puts a new signing key first and keeps or drops the old ones;
// the server is rebuilt over the same in-memory store, so registrations, grants and sessions survive it.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';

import Provider, { errors } from 'oidc-provider';

const SCOPES = ['tickets:read', 'tickets:write', 'worlds:admin'];
const DEFAULT_SCOPE = 'tickets:read';
const ALG = 'RS256';

const given = JSON.parse(process.argv[2]);
// Signs the interaction and session cookies; one per process, so a rotation keeps the sessions.
const cookieKey = crypto.randomBytes(32).toString('base64url');
const issuer = `http://127.0.0.1:${given.port}`;

function newKey() {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), alg: ALG, use: 'sig' };
}

function loadKeys() {
    if (!fs.existsSync(given.keys)) saveKeys([newKey()]);
    return JSON.parse(fs.readFileSync(given.keys, 'utf8'));
}

function saveKeys(keys) {
    fs.writeFileSync(given.keys, JSON.stringify(keys), { mode: 0o600 });
}

/** Any resource on this machine is a resource server here: the tests' servers listen on free loopback ports. */
function isLocalResource(indicator) {
    try {
        const url = new URL(indicator);
        return url.hostname === '127.0.0.1' || url.hostname === 'localhost';
    } catch {
        return false;
    }
}

function build(keys) {
    const provider = new Provider(issuer, {
        jwks: { keys },
        clients: [
            {
                client_id: given.machine.client_id,
                client_secret: given.machine.client_secret,
                grant_types: ['client_credentials'],
                response_types: [],
                redirect_uris: [],
                scope: SCOPES.join(' '),
            },
            {
                client_id: given.public.client_id,
                token_endpoint_auth_method: 'none',
                application_type: 'native',
                grant_types: ['authorization_code', 'refresh_token'],
                response_types: ['code'],
                redirect_uris: [given.public.redirect_uri],
            },
        ],
        // The resource scopes are listed too, so clients may register with them and discovery names them.
        responseTypes: ['code'],
        scopes: ['openid', 'offline_access', ...SCOPES],
        claims: { openid: ['sub'] },
        cookies: { keys: [cookieKey] },
        pkce: { required: () => true },
        findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        ttl: { AccessToken: 600, ClientCredentials: 600, Grant: 3600, Interaction: 600, Session: 3600 },
        features: {
            devInteractions: { enabled: false },
            clientCredentials: { enabled: true },
            // Client ID Metadata Documents (the registration the MCP specification prefers): still a draft here.
            clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
            registration: { enabled: true },
            revocation: { enabled: true },
            resourceIndicators: {
                enabled: true,
                defaultResource: async () => undefined,
                useGrantedResource: async () => true,
                getResourceServerInfo: async (_ctx, indicator) => {
                    if (!isLocalResource(indicator)) throw new errors.InvalidTarget();
                    return {
                        scope: SCOPES.join(' '),
                        audience: indicator,
                        accessTokenFormat: 'jwt',
                        accessTokenTTL: 600,
                        jwt: { sign: { alg: ALG } },
                    };
                },
            },
        },
    });
    provider.on('server_error', (_ctx, error) => console.error(`server_error: ${error.stack}`));
    return provider;
}

let provider = build(loadKeys());
let handle = provider.callback();

function rotate(keepOld) {
    const keys = [newKey(), ...(keepOld ? loadKeys() : [])];
    saveKeys(keys);
    provider = build(keys);
    handle = provider.callback();
    return { kid: keys[0].kid, kids: keys.map(key => key.kid) };
}

/** An authorization request that names no scope gets the default one, as RFC 6749 section 3.3 allows. */
function defaultScope(req) {
    const url = new URL(req.url, issuer);
    if (url.searchParams.has('resource') && !url.searchParams.get('scope')) {
        url.searchParams.set('scope', DEFAULT_SCOPE);
        req.url = url.pathname + url.search;
    }
}

async function body(req) {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text;
}

function send(res, status, type, text) {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(text);
}

const escape = text => String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

function page(uid, prompt, details) {
    if (prompt.name === 'login') {
        return `<!doctype html><title>Sign in</title><h1>Sign in to ${escape(issuer)}</h1>
<form method="post" action="/interaction/${uid}/login">
<label>Login <input name="login" autofocus></label> <label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button></form>`;
    }
    // One ticked box per scope asked: the person may allow fewer than the client asked for.
    const boxes = Object.entries(prompt.details.missingResourceScopes ?? {})
        .map(([resource, scopes]) => `<fieldset><legend>${escape(resource)}</legend>${scopes
            .map(scope => `<label><input type="checkbox" name="scope" value="${escape(scope)}" checked> ${escape(scope)}</label>`)
            .join(' ')}</fieldset>`)
        .join('');
    return `<!doctype html><title>Consent</title><h1>${escape(details.params.client_id)} asks for</h1>
<form method="post" action="/interaction/${uid}/confirm">${boxes}<button type="submit">Allow</button></form>`;
}

async function interaction(req, res, uid, action) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return send(res, 400, 'text/plain', 'interaction mismatch');
    if (req.method === 'GET' && !action) return send(res, 200, 'text/html', page(uid, details.prompt, details));
    if (req.method !== 'POST') return send(res, 405, 'text/plain', 'method not allowed');
    const form = new URLSearchParams(await body(req));
    if (action === 'login') {
        const { login, password } = given.account;
        if (form.get('login') !== login || form.get('password') !== password) {
            return send(res, 401, 'text/plain', 'wrong login or password');
        }
        return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    }
    if (action === 'confirm') {
        const { prompt, params, session, grantId } = details;
        const grant = grantId
            ? await provider.Grant.find(grantId)
            : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
        if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
        if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
        const allowed = new Set(form.getAll('scope'));
        for (const [resource, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
            const kept = scopes.filter(scope => allowed.has(scope));
            const refused = scopes.filter(scope => !allowed.has(scope));
            if (kept.length) grant.addResourceScope(resource, kept.join(' '));
            if (refused.length) grant.rejectResourceScope(resource, refused.join(' ')); // or it would ask again
        }
        const saved = await grant.save();
        return provider.interactionFinished(req, res, { consent: { grantId: saved } }, { mergeWithLastSubmission: true });
    }
    return send(res, 404, 'text/plain', 'no such interaction step');
}

const server = http.createServer(async (req, res) => {
    try {
        const path = new URL(req.url, issuer).pathname;
        if (req.method === 'POST' && path === '/admin/rotate') {
            const { keep_old: keepOld = true } = JSON.parse((await body(req)) || '{}');
            return send(res, 200, 'application/json', JSON.stringify(rotate(keepOld)));
        }
        if (path === '/auth') defaultScope(req);
        const step = path.match(/^\/interaction\/([^/]+)(?:\/(login|confirm))?$/);
        if (step) return await interaction(req, res, step[1], step[2]);
        return handle(req, res);
    } catch (error) {
        console.error(error.stack);
        if (!res.headersSent) send(res, 500, 'text/plain', String(error.message));
    }
});

server.listen(given.port, '127.0.0.1', () => console.log(JSON.stringify({ issuer })));
process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections(); // keep-alive clients would hold the port open
});
