/**
 * The request path every entry point shares: the gateway's {@code RateLimit} filter, a
 * policy's {@code RateLimiter} bean and the plain WebFlux {@link RateLimitWebFilter}
 * each call a route's {@link RequestJudge}, built by {@link RequestJudges}. It reads
 * top to bottom: the request's tier, then under each of the route's policies (one
 * {@link PolicyJudge} each, its answers a {@link PolicyJudgement}) the cost and key
 * ({@link TierLookup}, {@link CostLookup}, {@link KeyLookup}, or the application's
 * {@link TierResolver} and {@link CostResolver}) and the store's decision, all or nothing
 * ({@link PolicyCombination} says which policies can be judged together), then the
 * listeners ({@link RateLimitListener}, {@link Outcome}), one set of rate limit headers
 * ({@link RouteHeaders}, over each tier's {@link RateLimitHeaders}) and either the request
 * forwarded or a {@link RateLimitRejection} answered by the
 * {@link RateLimitRejectionHandler}. Each policy's decision by its store is observed
 * ({@link RateLimitObservationDocumentation}) when the application has an
 * {@code ObservationRegistry}, as a child of the request's observation.
 * <p>
 * A request a shaping limit admitted for later is held before it is forwarded
 * ({@link HeldRelease}, in one of the node's {@link HeldRequests} places). What the
 * exchange settles of a decision (a counted status, a cost the response reports in a
 * header, through a {@link ResponseCostResolver} or in its body, read as it streams by
 * {@link BodyNumbers}, and the slots of in-flight limits) is settled by the one
 * {@link ExchangeSettlement} per admitted policy around {@code RequestJudge.forward}, the
 * one place an admitted request leaves the judge, as a {@link SettlementPlan} resolved per
 * route and tier says; a held request that never goes on, and what a policy took of a
 * request a later policy refused, are given back by each policy; all through each
 * policy's {@link RouteSettler}. A {@code RateLimiter} bean's judgement ends with its
 * response: Spring Cloud Gateway's own filter forwards the request, so nothing there
 * sees the upstream's answer, and its judge refuses a policy settled after it. Nothing here imports Spring Cloud Gateway, whose adapters live in
 * {@code dev.ratelimit.gateway}. Everything here is non-null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.ratelimit.web;

import org.jspecify.annotations.NullMarked;
