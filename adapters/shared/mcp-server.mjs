#!/usr/bin/env node
// @ts-check
// Goal System MCP server (stdio) for VS Code Copilot Chat and Claude Code; the
// file every registration names. It runs mcp-server.bundle.mjs, the server
// (mcp-stdio.mjs) and the MCP SDK in one file that the build makes
// (scripts/build-mcp.mjs): loading the SDK's module graph file by file was most
// of a cold start. In a clone not yet built it runs mcp-stdio.mjs itself.
import { existsSync } from 'node:fs'

const bundle = new URL('./mcp-server.bundle.mjs', import.meta.url)
await import(existsSync(bundle) ? bundle.href : './mcp-stdio.mjs')
