/**
 * Node flags every app process runs with (npm start, the bench, and NODE_OPTIONS in the image; both
 * are accepted in NODE_OPTIONS, so compose and Kubernetes get them from the image).
 *
 * --max-old-space-size: without an explicit heap limit V8 sizes it from physical memory (about 4 GB
 * on a 24 GB machine) and grows the heap in steps scaled to that limit: under load the edge peaked at
 * 228-250 MB RSS. With any explicit limit from 128 MB to 1 GB the same load peaked at 167-175 MB at
 * the same CPU per request (Node 20, wrk, c=64, non-stream chat). 512 MB leaves room for a log
 * backlog while Redis is unreachable.
 *
 * --max-semi-space-size: V8 13 (Node 24) lets each of the young generation's two semi-spaces grow to
 * 64 MB where V8 11 (Node 20) stopped at 16 (heap_size_limit with the old-space limit above: 704 MB
 * against 560), and the edge's peak RSS at c=32 rose from about 190 to 290-340 MB. 8 MB brought it
 * back under 200 MB; 16 left it at 210-260 and 4 at 240 (promoting more into the old generation), at
 * no measurable CPU cost per request (docs/benchmarks.md, "Node 20 and Node 24").
 */
export const APP_NODE_FLAGS: readonly string[] = ['--max-old-space-size=512', '--max-semi-space-size=8'];
