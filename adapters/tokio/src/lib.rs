//! Runs mcp-sansio endpoints on tokio.
