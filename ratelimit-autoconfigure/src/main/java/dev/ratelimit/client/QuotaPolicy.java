package dev.ratelimit.client;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One item of a {@code RateLimit-Policy} field, in either draft's form: draft-11's
 * {@code "name";q=100;w=60} (draft-ietf-httpapi-ratelimit-headers-11 section 3.1) or
 * draft-06's unnamed {@code 100;w=60} (draft-ietf-httpapi-ratelimit-headers-06 sections
 * 2.1 and 3.2).
 *
 * @param name the policy's name (draft-11); {@code null} in draft-06, whose policies have
 * none
 * @param quota the quota, draft-11's {@code q} (section 3.1.1) or draft-06's bare item
 * @param window the time window, {@code w} (draft-11 section 3.1.3, where it is optional;
 * draft-06 section 2.1, where it is required); {@code null} when absent
 * @param unit draft-11's quota unit {@code qu} (section 3.1.2), {@code null} when absent
 * (the default unit is {@code requests})
 */
public record QuotaPolicy(@Nullable String name, long quota, @Nullable Duration window, @Nullable String unit) {

}
