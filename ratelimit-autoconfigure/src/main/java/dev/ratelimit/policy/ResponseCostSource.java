package dev.ratelimit.policy;

/**
 * Where a response says what its request cost, as {@code cost-from-response} names it.
 */
public sealed interface ResponseCostSource {

	/**
	 * An upstream response header holding a whole number ({@code header:NAME}).
	 *
	 * @param name the header's name
	 */
	record Header(String name) implements ResponseCostSource {
	}

	/**
	 * A number in a JSON body, or in the {@code data} of the last event of a
	 * {@code text/event-stream} that has it ({@code json:/pointer}).
	 *
	 * @param pointer where the number is
	 */
	record Json(JsonPointer pointer) implements ResponseCostSource {
	}

	/**
	 * The application's {@code ResponseCostResolver} bean ({@code resolver}).
	 */
	record Resolver() implements ResponseCostSource {
	}

}
