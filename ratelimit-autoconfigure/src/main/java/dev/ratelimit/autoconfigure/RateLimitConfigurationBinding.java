package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.support.ConfigName;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Binds every {@code ratelimit.*} properties class from the environment at once and
 * reports, as {@link ConfigurationProblem}s, what binding alone lets pass or reports in
 * Java's spelling: a key that no property binds, with the nearest valid key at its
 * level (a misspelt {@code refil-period} is otherwise ignored, and the bucket refills
 * at the default period), and a value that does not convert, with what it must be (an
 * enum's values as configuration writes them), so that it is in the same report as the
 * rest rather than Spring Boot's bind failure, which stops at the first. Used at
 * start-up ({@link RateLimitConfigurationCheck}) and on a live reload
 * ({@link EnvironmentChangeReload}), so that both judge alike.
 */
final class RateLimitConfigurationBinding {

	static final String PREFIX = "ratelimit";

	/**
	 * The property that lets keys the starter does not know pass.
	 */
	static final String IGNORE_UNKNOWN_KEYS = PREFIX + ".ignore-unknown-keys";

	static final String UNKNOWN_KEY = "is not a known key";

	/**
	 * What a list element after a gap in its list's indexes is.
	 */
	static final String ELEMENT_AFTER_GAP = "is not bound: a list's elements are numbered from [0] without a gap";

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(PREFIX);

	/**
	 * Every class bound under {@code ratelimit}, by prefix. The keys read only by
	 * conditions ({@code ratelimit.enabled}, {@code ratelimit.actuator.dashboard.enabled})
	 * are properties of these classes too.
	 */
	private static final List<Map.Entry<String, Class<?>>> NESTED = List.of(
			Map.entry(PREFIX + ".redis", RateLimitRedisProperties.class),
			Map.entry(PREFIX + ".hybrid", RateLimitHybridProperties.class),
			Map.entry(PREFIX + ".actuator", RateLimitActuatorProperties.class));

	private RateLimitConfigurationBinding() {
	}

	/**
	 * Bind {@code ratelimit.*} from {@code environment}. A value that does not convert
	 * to an enum, a number, a duration or a boolean leaves the property at its default
	 * and is a problem; any other value that does not bind fails as Spring Boot's
	 * binding would.
	 * @throws BindException for a value of another type that does not bind
	 */
	static Result bind(Environment environment) {
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
		Binder binder = Binder.get(environment);
		boolean ignoresUnknownKeys = ignoresUnknownKeys(binder);
		RecordingBindHandler handler = new RecordingBindHandler(!ignoresUnknownKeys);
		RateLimitProperties properties = binder.bindOrCreate(PREFIX, Bindable.of(RateLimitProperties.class),
				handler);
		NESTED.forEach((nested) -> binder.bind(nested.getKey(), Bindable.of(nested.getValue()), handler));
		List<ConfigurationProblem> problems = new ArrayList<>(handler.conversionProblems);
		if (!ignoresUnknownKeys) {
			problems.addAll(handler.unknownKeys(sources));
		}
		return new Result(properties, problems, handler.unsetLists);
	}

	/**
	 * Whether unknown keys are let pass: then a list cut short by an element that binds
	 * nothing fails as Spring Boot's binding fails, since its elements would otherwise be
	 * lost without a word.
	 */
	private static boolean ignoresUnknownKeys(Binder binder) {
		try {
			return binder.bind(IGNORE_UNKNOWN_KEYS, Boolean.class).orElse(false);
		}
		catch (BindException ex) {
			// Not true or false: reported with the values that do not convert.
			return false;
		}
	}

	/**
	 * Whether {@code problem} is a key no property binds.
	 */
	static boolean isUnknownKey(ConfigurationProblem problem) {
		return problem.rule().startsWith(UNKNOWN_KEY);
	}

	/**
	 * The bound properties and the problems found binding them.
	 *
	 * @param properties {@code ratelimit.*}, a value that does not convert left at its
	 * default
	 * @param problems the unknown keys and the values that do not convert
	 * @param unsetLists the lists left unset for an element among the problems, as
	 * written
	 */
	record Result(RateLimitProperties properties, List<ConfigurationProblem> problems, Set<String> unsetLists) {

		/**
		 * These problems, then those of the policies built from the properties, less
		 * theirs about a property already named here, or about a list left unset or what
		 * holds it: a value that does not convert is left unset, and so is a list whose
		 * element is named here, which the policies' checks would report again as
		 * missing.
		 */
		List<ConfigurationProblem> with(List<ConfigurationProblem> policyProblems) {
			Set<String> named = new HashSet<>();
			this.problems.forEach((problem) -> named.add(problem.property()));
			List<ConfigurationProblem> all = new ArrayList<>(this.problems);
			policyProblems.stream()
				.filter((problem) -> !named.contains(problem.property()) && !holdsAnUnsetList(problem.property()))
				.forEach(all::add);
			return all;
		}

		private boolean holdsAnUnsetList(String property) {
			return this.unsetLists.stream()
				.anyMatch((list) -> list.equals(property) || list.startsWith(property + ".")
						|| list.startsWith(property + "["));
		}

	}

	/**
	 * Records the names binding tried (every property of a bean it binds, whether set or
	 * not) and those it bound, as Spring Boot's {@code NoUnboundElementsBindHandler}
	 * does, and turns a value that does not convert (an enum, a number, a duration, a
	 * boolean) into a problem.
	 */
	private static final class RecordingBindHandler extends AbstractBindHandler {

		private final Set<ConfigurationPropertyName> attempted = new HashSet<>();

		private final Set<ConfigurationPropertyName> bound = new HashSet<>();

		/**
		 * The keys of the list elements that bound nothing.
		 */
		private final Set<ConfigurationPropertyName> unboundElements = new HashSet<>();

		private final List<ConfigurationProblem> conversionProblems = new ArrayList<>();

		private final Set<String> unsetLists = new HashSet<>();

		private final boolean reportsUnboundElements;

		/**
		 * @param reportsUnboundElements whether a list cut short by an element that binds
		 * nothing is left unset and its element reported, rather than failing the binding
		 */
		RecordingBindHandler(boolean reportsUnboundElements) {
			this.reportsUnboundElements = reportsUnboundElements;
		}

		@Override
		public <T> @Nullable Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target,
				BindContext context) {
			this.attempted.add(name);
			return super.onStart(name, target, context);
		}

		@Override
		public @Nullable Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				Object result) {
			this.bound.add(name);
			return super.onSuccess(name, target, context, result);
		}

		@Override
		public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				Exception error) throws Exception {
			if (this.reportsUnboundElements && error instanceof UnboundConfigurationPropertiesException unbound) {
				// An element all of whose keys are misspelt, or one after a gap in the
				// indexes, ends the list; Spring Boot's failure names neither the key nor
				// the nearest. Reported with the unknown keys, the list left unset; the
				// list's elements in other sources are overridden, as when it binds.
				unbound.getUnboundProperties().forEach((element) -> this.unboundElements.add(element.getName()));
				this.unsetLists.add(asWritten(name));
				this.bound.add(name);
				return null;
			}
			ConfigurationProperty property = context.getConfigurationProperty();
			String rule = conversionRule(target.getType().resolve());
			if (property != null && rule != null) {
				this.conversionProblems.add(new ConfigurationProblem(name.toString(), property.getValue(), rule));
				this.bound.add(name);
				// The property keeps its default; the problem stops start-up or the reload.
				return null;
			}
			return super.onFailure(name, target, context, error);
		}

		/**
		 * What a value of {@code type} must be, in the words of the other problems, or
		 * {@code null} for a type whose failure Spring Boot's binding reports.
		 */
		private static @Nullable String conversionRule(@Nullable Class<?> type) {
			if (type == null) {
				return null;
			}
			if (type.isEnum() && ConfigName.class.isAssignableFrom(type)) {
				return "must be " + ConfigName.oneOf((ConfigName[]) type.getEnumConstants());
			}
			if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
				return "must be a whole number";
			}
			if (type == Double.class || type == double.class) {
				return "must be a number";
			}
			if (type == Duration.class) {
				return "must be a duration (for example 500ms, 1s, 1m, 1d)";
			}
			if (type == Boolean.class || type == boolean.class) {
				return "must be true or false";
			}
			return null;
		}

		/**
		 * One problem for each key under {@code ratelimit} that no property bound, keys
		 * under an unknown key reported as one.
		 */
		List<ConfigurationProblem> unknownKeys(Iterable<ConfigurationPropertySource> sources) {
			Map<ConfigurationPropertyName, List<ConfigurationProperty>> unknown = new LinkedHashMap<>();
			Set<ConfigurationPropertyName> seen = new HashSet<>();
			for (ConfigurationPropertySource source : sources) {
				if (source instanceof IterableConfigurationPropertySource iterable) {
					iterable.filter(ROOT::isAncestorOf).forEach((name) -> {
						if (seen.add(name) && isUnknown(name)) {
							ConfigurationProperty property = source.getConfigurationProperty(name);
							unknown.computeIfAbsent(unknownKey(name), (key) -> new ArrayList<>()).add(property);
						}
					});
				}
			}
			List<ConfigurationProblem> problems = new ArrayList<>();
			unknown.forEach((key, properties) -> problems.add(problem(key, properties)));
			return problems;
		}

		private boolean isUnknown(ConfigurationPropertyName name) {
			return this.unboundElements.contains(name)
					|| (!this.bound.contains(name) && !this.attempted.contains(name) && !isOverriddenElement(name));
		}

		/**
		 * Whether {@code name} is an element of a list that another property source set
		 * whole: a list binds from one source, and the elements of the others are not
		 * mistakes.
		 */
		private boolean isOverriddenElement(ConfigurationPropertyName name) {
			for (int i = 0; i < name.getNumberOfElements(); i++) {
				if (name.isNumericIndex(i) && this.bound.contains(name.chop(i))
						&& !this.bound.contains(name.chop(i + 1))) {
					return true;
				}
			}
			return false;
		}

		/**
		 * The first element of {@code name} binding never tried: the key to correct.
		 */
		private ConfigurationPropertyName unknownKey(ConfigurationPropertyName name) {
			ConfigurationPropertyName key = name;
			while (!key.getParent().isEmpty() && !this.attempted.contains(key.getParent())) {
				key = key.getParent();
			}
			return key;
		}

		private ConfigurationProblem problem(ConfigurationPropertyName key, List<ConfigurationProperty> properties) {
			Object value;
			if (properties.size() == 1 && properties.get(0).getName().equals(key)) {
				value = properties.get(0).getValue();
			}
			else {
				value = (properties.size() == 1) ? "set (" + asWritten(properties.get(0).getName()) + ")"
						: "set (" + properties.size() + " keys under it)";
			}
			String rule = key.isLastElementIndexed() ? ELEMENT_AFTER_GAP : UNKNOWN_KEY + suggestion(key);
			return new ConfigurationProblem(asWritten(key), value, rule);
		}

		/**
		 * {@code name} in the form its property source has it ({@code refilPeriod}, not
		 * the {@code refilperiod} of {@link ConfigurationPropertyName#toString()}).
		 */
		private static String asWritten(ConfigurationPropertyName name) {
			StringBuilder written = new StringBuilder();
			for (int i = 0; i < name.getNumberOfElements(); i++) {
				String element = name.getElement(i, Form.ORIGINAL);
				if (name.chop(i + 1).isLastElementIndexed()) {
					written.append('[').append(element).append(']');
				}
				else {
					written.append((i > 0) ? "." : "").append(element);
				}
			}
			return written.toString();
		}

		/**
		 * The valid key nearest {@code key} among its siblings, or the siblings when none
		 * is near.
		 */
		private String suggestion(ConfigurationPropertyName key) {
			ConfigurationPropertyName parent = key.getParent();
			SortedSet<String> siblings = new TreeSet<>();
			for (ConfigurationPropertyName name : this.attempted) {
				if (parent.isParentOf(name) && !name.isLastElementIndexed()) {
					siblings.add(name.getLastElement(Form.DASHED));
				}
			}
			return KeySuggestion.of(key.getLastElement(Form.DASHED), parent.toString(), siblings);
		}

	}

}
