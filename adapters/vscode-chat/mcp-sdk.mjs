// @ts-check
// The parts of the MCP SDK the server uses, in one place: scripts/build-mcp.mjs
// bundles this file (and what it imports) into mcp-sdk.bundle.mjs, which
// mcp-server.mjs loads instead of the SDK's module graph.
export { Server } from '@modelcontextprotocol/sdk/server/index.js'
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
export { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
