//! The memory tools' definitions (`store_memory`, `vote_memory`): names,
//! descriptions and texts from `memory/`, input schemas from its typed
//! requests. Both write, so neither is read-only: hosts that honour the
//! annotations ask before calling them, and the adapters never skip the
//! host's permission flow for them.

use super::{input_schema, Annotations, ToolDefinition};
use crate::memory::record::{StoreMemoryRequest, VoteMemoryRequest};
use crate::memory::{messages, STORE_TOOL, VOTE_TOOL};

/// `store_memory` then `vote_memory`.
pub fn memory_tool_definitions() -> Vec<ToolDefinition> {
    let def = |name, title, operation, description, input_schema, idempotent| ToolDefinition {
        name,
        title,
        description,
        operation,
        input_schema,
        output_schema: None,
        annotations: Annotations {
            title,
            read_only_hint: false,
            destructive_hint: Some(false),
            idempotent_hint: idempotent,
            open_world_hint: false,
        },
    };
    vec![
        // Storing the same fact again merges into one memory.
        def(
            STORE_TOOL,
            "Store memory",
            "storeMemory",
            messages::store_description(),
            input_schema::<StoreMemoryRequest>(),
            true,
        ),
        def(
            VOTE_TOOL,
            "Vote on a memory",
            "voteMemory",
            messages::vote_description(),
            input_schema::<VoteMemoryRequest>(),
            false,
        ),
    ]
}
