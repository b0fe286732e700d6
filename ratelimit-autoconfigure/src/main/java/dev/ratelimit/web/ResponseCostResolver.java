package dev.ratelimit.web;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

/**
 * Says what a request cost once its response is known, for the policies whose
 * {@code cost-from-response} is {@code resolver}: anything a header or one JSON Pointer
 * cannot say, such as the sum of a language model's input and output tokens. Declare
 * one as a bean. The body is never buffered: the resolver names the JSON Pointers it
 * needs, and is given the numbers found there, in a JSON body or in the last event of
 * an event stream that has each.
 */
public interface ResponseCostResolver {

	/**
	 * JSON Pointers (RFC 6901) whose numbers {@link #cost} needs from the body; none
	 * when it reads the headers only, in which case it is asked before the response is
	 * committed.
	 */
	default List<String> pointers() {
		return List.of();
	}

	/**
	 * What the request cost. Called on the request path, once the response's headers are
	 * known, or once its body has been read when {@link #pointers()} are named: it must
	 * not block.
	 * @param policyId the policy the request was judged by
	 * @param status the response's status
	 * @param headers the response's headers
	 * @param numbers each pointer's number found in the body, by pointer as written; a
	 * pointer not found, or not at a number, is absent
	 * @return the units the request cost, {@code 0} or more; {@code null} when the
	 * response does not say, and the estimate stands
	 */
	@Nullable Long cost(String policyId, HttpStatusCode status, HttpHeaders headers, Map<String, Number> numbers);

}
