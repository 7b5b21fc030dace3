// Estimate a refund, open a ticket from the quote without a refund method (the server asks the person), then
// send the same create again with the same idempotency key. Input: {url, revision, order_id, reason_code,
// idempotency_key, person: {action, method, confirm}}. On 2026-07-28 the client answers `input_required` rounds
// itself (auto-fulfilment) through the same elicitation handler that answers `elicitation/create` on 2025-11-25;
// the wire log shows which of the two the server used.
import { connect, input, person, run, summary } from './lib.mjs';

run(async () => {
    const given = input();
    const asked = person(given.person);
    const { client, wire } = await connect(given, asked.answer);
    const line = { order_id: given.order_id, line_no: 1, reason_code: given.reason_code };
    const estimate = summary(await client.callTool({ name: 'after_sales_estimate_refund', arguments: line }));
    const create = {
        ...line,
        kind: 'return_and_refund',
        description: 'Stopped working after two days.',
        idempotency_key: given.idempotency_key,
        quote_id: estimate.structuredContent.quote_id
    };
    const created = summary(await client.callTool({ name: 'after_sales_create_ticket', arguments: create }));
    const formsOnCreate = asked.forms.length;
    const again = summary(await client.callTool({ name: 'after_sales_create_ticket', arguments: create }));
    const output = {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        estimate,
        created,
        again,
        forms: asked.forms,
        formsOnCreate,
        wire: await wire()
    };
    await client.close();
    return output;
});
