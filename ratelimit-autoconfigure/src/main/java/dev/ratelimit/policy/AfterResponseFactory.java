package dev.ratelimit.policy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.policy.PolicySettings.AfterResponseSpec;
import org.jspecify.annotations.Nullable;

/**
 * Turns a policy's {@code count-responses}, {@code cost-from-response} and
 * {@code hide-response-cost-header} into its {@link AfterResponse}, checking each entry
 * of the list, the form of the cost's source and that only a header source hides.
 */
final class AfterResponseFactory {

	private static final String HEADER = "header:";

	private static final String JSON = "json:";

	private static final String RESOLVER = "resolver";

	private static final Pattern STATUS = Pattern.compile("[0-9]{3}");

	private static final Pattern STATUS_CLASS = Pattern.compile("([0-9])[xX][xX]");

	// RFC 9110 section 15: statuses are three digits, 100 to 599, in five classes.
	private static final String STATUS_OR_CLASS = "must be a status (100 to 599) or a class of statuses (1xx to 5xx), "
			+ "such as 401 or 4xx (RFC 9110 section 15)";

	private static final String COST_SOURCES = "must be header:<Name>, json:<JSON Pointer> or resolver, for example "
			+ "header:X-Token-Usage or json:/usage/total_tokens";

	private AfterResponseFactory() {
	}

	/**
	 * @param path the policy's property path
	 * @param responseCostResolverPresent whether the application declares a
	 * {@code ResponseCostResolver} bean, which {@code cost-from-response: resolver} asks
	 * @return what the policy settles after the response, {@link AfterResponse#NONE} when
	 * nothing is set, or {@code null} when a problem was added
	 */
	static @Nullable AfterResponse afterResponse(String path, AfterResponseSpec spec,
			boolean responseCostResolverPresent, List<ConfigurationProblem> problems) {
		int problemsBefore = problems.size();
		List<String> countResponses = spec.countResponses();
		CountedResponses counted = (countResponses != null)
				? countedResponses(path + ".count-responses", countResponses, problems) : null;
		String costFromResponse = spec.costFromResponse();
		ResponseCostSource source = (costFromResponse != null)
				? costSource(path + ".cost-from-response", costFromResponse, responseCostResolverPresent, problems)
				: null;
		if (spec.hideCostHeader() && (costFromResponse == null || !costFromResponse.startsWith(HEADER))) {
			problems.add(new ConfigurationProblem(path + ".hide-response-cost-header", true,
					"must not be set unless cost-from-response is header:<Name>: only the response header the "
							+ "cost is read from can be kept from the client"));
		}
		if (problems.size() > problemsBefore) {
			return null;
		}
		return (counted == null && source == null) ? AfterResponse.NONE
				: new AfterResponse(counted, source, spec.hideCostHeader());
	}

	private static @Nullable CountedResponses countedResponses(String path, List<String> entries,
			List<ConfigurationProblem> problems) {
		if (entries.isEmpty()) {
			problems.add(new ConfigurationProblem(path, "[]",
					"must list at least one status or class of statuses, such as [401, 403] or [4xx, 5xx]; "
							+ "without count-responses every admitted request takes its cost"));
			return null;
		}
		int problemsBefore = problems.size();
		Set<Integer> statuses = new HashSet<>();
		Set<Integer> classes = new HashSet<>();
		for (int i = 0; i < entries.size(); i++) {
			String entryPath = path + "[" + i + "]";
			String entry = entries.get(i);
			String written = (entry != null) ? entry.strip() : "";
			Matcher statusClass = STATUS_CLASS.matcher(written);
			if (STATUS.matcher(written).matches()) {
				int status = Integer.parseInt(written);
				if (status < 100 || status > 599) {
					problems.add(new ConfigurationProblem(entryPath, ConfigurationProblem.quoted(entry),
							"must be a status from 100 to 599 (RFC 9110 section 15)"));
				}
				statuses.add(status);
			}
			else if (statusClass.matches()) {
				int digit = Integer.parseInt(statusClass.group(1));
				if (digit < 1 || digit > 5) {
					problems.add(new ConfigurationProblem(entryPath, ConfigurationProblem.quoted(entry),
							"must be a class of statuses from 1xx to 5xx (RFC 9110 section 15)"));
				}
				classes.add(digit);
			}
			else {
				problems.add(new ConfigurationProblem(entryPath, ConfigurationProblem.quoted(entry), STATUS_OR_CLASS));
			}
		}
		return (problems.size() > problemsBefore) ? null : new CountedResponses(statuses, classes);
	}

	private static @Nullable ResponseCostSource costSource(String path, String source,
			boolean responseCostResolverPresent, List<ConfigurationProblem> problems) {
		if (source.startsWith(HEADER)) {
			String name = source.substring(HEADER.length()).strip();
			if (!RateLimitPolicyFactory.HEADER_NAME.matcher(name).matches()) {
				problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(source),
						"must name an HTTP header after 'header:' (a token, RFC 9110 section 5.1), for example "
								+ "header:X-Token-Usage"));
				return null;
			}
			return new ResponseCostSource.Header(name);
		}
		if (source.startsWith(JSON)) {
			try {
				return new ResponseCostSource.Json(JsonPointer.parse(source.substring(JSON.length())));
			}
			catch (IllegalArgumentException ex) {
				problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(source),
						"must have a JSON Pointer after 'json:', for example json:/usage/total_tokens: "
								+ ex.getMessage()));
				return null;
			}
		}
		if (source.equals(RESOLVER)) {
			if (!responseCostResolverPresent) {
				problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(source),
						"needs a dev.ratelimit.web.ResponseCostResolver bean, and the application declares none: "
								+ "declare one, or read the cost with header:<Name> or json:<JSON Pointer>"));
				return null;
			}
			return new ResponseCostSource.Resolver();
		}
		problems.add(new ConfigurationProblem(path, ConfigurationProblem.quoted(source), COST_SOURCES));
		return null;
	}

}
