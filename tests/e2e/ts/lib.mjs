// Shared by the scripts: read the test's input, connect the TypeScript client v2, record the wire, print JSON.
//
// Each script takes one JSON argument ({"url": ..., "revision": ..., ...}) and the bearer token in the
// AFTERSALES_TOKEN environment variable, and prints one JSON object on stdout for the Python test to assert on.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

/** The test's input: the JSON object passed as the first argument. */
export function input() {
    return JSON.parse(process.argv[2]);
}

/** One line of the wire log for a JSON-RPC message: its method, or what kind of answer it is. */
function describe(message) {
    if (message.method) return { method: message.method };
    if (message.error) return { error: message.error.code };
    return { result: message.result?.resultType ?? 'complete' };
}

/** The JSON-RPC messages in a response body, whether plain JSON or a server-sent event stream. */
function messagesIn(contentType, text) {
    if (!text) return [];
    if (contentType.includes('text/event-stream')) {
        return text
            .split('\n')
            .filter(line => line.startsWith('data:') && line.slice(5).trim())
            .map(line => JSON.parse(line.slice(5)));
    }
    return [JSON.parse(text)].flat();
}

/**
 * A fetch that records what each POST sent and what came back, so a test can tell an `input_required`
 * round (2026-07-28) from an `elicitation/create` request sent mid-call (2025-11-25).
 */
function recordingFetch(wire, pending) {
    return async (url, init) => {
        const response = await fetch(url, init);
        if ((init?.method ?? 'GET') !== 'POST') return response;
        const entry = { sent: [JSON.parse(init.body)].flat().map(describe), status: response.status, received: [] };
        wire.push(entry);
        const contentType = response.headers.get('content-type') ?? '';
        pending.push(
            response
                .clone()
                .text()
                .then(text => {
                    entry.received = messagesIn(contentType, text).map(describe);
                })
        );
        return response;
    };
}

/**
 * A person answering forms: accepts with a refund method and a confirmation, or declines or cancels.
 * Remembers every form it was shown.
 */
export function person({ action = 'accept', method = 'store_credit', confirm = true } = {}) {
    const forms = [];
    const answer = async request => {
        const { message, requestedSchema } = request.params;
        const fields = Object.keys(requestedSchema.properties);
        forms.push({ message, fields, schema: requestedSchema });
        if (action !== 'accept') return { action };
        return { action, content: fields.includes('refund_method') ? { refund_method: method } : { confirm } };
    };
    return { forms, answer };
}

/**
 * Connect to `${url}/mcp` with the bearer token: revision 2026-07-28 by negotiation ('auto' mode probes
 * server/discover), or 2025-11-25 with the initialize handshake ('legacy' mode). With `answer`, the client
 * declares form elicitation and answers with it.
 */
export async function connect({ url, revision }, answer) {
    const client = new Client(
        { name: 'aftersales-ts-e2e', version: '1.0.0' },
        {
            capabilities: answer ? { elicitation: { form: {} } } : {},
            versionNegotiation: { mode: revision === LEGACY ? 'legacy' : 'auto' }
        }
    );
    if (answer) client.setRequestHandler('elicitation/create', answer);
    const wire = [];
    const pending = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${process.env.AFTERSALES_TOKEN}` } },
        fetch: recordingFetch(wire, pending)
    });
    await client.connect(transport);
    return {
        client,
        /** The wire log so far, once every recorded response body has been read. */
        async wire() {
            await Promise.all(pending);
            return wire;
        }
    };
}

/** What a test needs from a tool result. */
export function summary(result) {
    return {
        isError: result.isError ?? false,
        structuredContent: result.structuredContent ?? null,
        text: result.content?.map(block => block.text ?? '').join('') ?? ''
    };
}

/** Print the output object and exit 0; any exception prints {"error": ...} to stdout and exits 1. */
export async function run(main) {
    try {
        process.stdout.write(JSON.stringify(await main()));
        process.exit(0);
    } catch (error) {
        process.stdout.write(JSON.stringify({ error: String(error), code: error?.code ?? null }));
        process.exit(1);
    }
}
