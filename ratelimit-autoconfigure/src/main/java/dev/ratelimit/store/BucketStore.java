package dev.ratelimit.store;

/**
 * A whole store: where bucket state lives, how a decision over it is made atomic
 * ({@link BucketDecider}), and what an operator sees of it ({@link BucketInspector}).
 * The stores this starter ships are such stores. Code that needs only one side
 * depends on that port alone, and a store of an application's own, or a test's, may
 * implement just the port it serves.
 */
public interface BucketStore extends BucketDecider, BucketInspector {

}
