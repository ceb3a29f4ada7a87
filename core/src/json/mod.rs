//! JSON without an allocator: a validating scanner and a writer into caller-owned buffers.
