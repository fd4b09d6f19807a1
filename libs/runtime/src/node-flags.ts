/**
 * Node flags every app process runs with (npm start, the bench, and NODE_OPTIONS in the image).
 *
 * Without an explicit heap limit V8 sizes it from physical memory (about 4 GB on a 24 GB machine)
 * and grows the heap in steps scaled to that limit: under load the edge peaked at 228-250 MB RSS.
 * With any explicit limit from 128 MB to 1 GB the same load peaked at 167-175 MB at the same CPU per
 * request (measured with wrk, c=64, non-stream chat). 512 MB leaves room for a log backlog while
 * Redis is unreachable.
 */
export const APP_NODE_FLAGS: readonly string[] = ['--max-old-space-size=512'];
