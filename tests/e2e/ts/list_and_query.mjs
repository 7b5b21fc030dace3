// tools/list, then after_sales_query_ticket for one ticket. Input: {url, revision, ticket_id}.
// The client validates structuredContent against the tool's published outputSchema itself (with AJV).
import { connect, input, run, summary } from './lib.mjs';

run(async () => {
    const given = input();
    const { client, wire } = await connect(given);
    const { tools } = await client.listTools();
    const query = await client.callTool({ name: 'after_sales_query_ticket', arguments: { ticket_id: given.ticket_id } });
    const unknown = await client
        .callTool({ name: 'after_sales_no_such_tool', arguments: {} })
        .then(result => ({ result: summary(result) }))
        .catch(error => ({ code: error.code, message: error.message }));
    const output = {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        era: client.getProtocolEra(),
        tools,
        query: summary(query),
        unknownTool: unknown,
        wire: await wire()
    };
    await client.close();
    return output;
});
