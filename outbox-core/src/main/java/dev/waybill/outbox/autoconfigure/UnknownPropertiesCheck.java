package dev.waybill.outbox.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.core.ResolvableType;

import dev.waybill.outbox.autoconfigure.UnknownWaybillPropertyException.UnknownProperty;

/**
 * Finds the {@code waybill.*} keys that no Waybill properties class binds, the way
 * {@code @ConfigurationProperties(ignoreUnknownFields = false)} finds them: each class is bound
 * with Spring Boot's {@link NoUnboundElementsBindHandler}, and a key is unknown when every class
 * whose prefix covers it leaves it unbound. Several classes share prefixes ({@code waybill} is
 * the outbox's and the schedules'; {@code waybill.inbox} lies below it), and a class of a module
 * that is inactive on this host, or absent, is bound here too, so its keys are checked on every
 * host. As with Spring Boot, keys from environment variables and system properties are not
 * checked: those namespaces are shared with other software.
 *
 * @since 0.1
 */
final class UnknownPropertiesCheck {

	private final Iterable<ConfigurationPropertySource> sources;

	private final Binder binder;

	private final Set<KnownName> known = new LinkedHashSet<>();

	private final Set<ConfigurationPropertyName> keyedMaps = new LinkedHashSet<>();

	/** Per class's prefix: the names each binding left unbound; {@code null} where one could not tell. */
	private final Map<ConfigurationPropertyName, List<@Nullable Set<ConfigurationPropertyName>>> unbound = new HashMap<>();

	private final Map<ConfigurationPropertyName, ConfigurationProperty> properties = new LinkedHashMap<>();

	private final Map<ConfigurationPropertyName, String> suggestions = new HashMap<>();

	UnknownPropertiesCheck(Iterable<ConfigurationPropertySource> sources, Collection<KnownName> known) {
		this.sources = sources;
		this.binder = new Binder(sources);
		this.known.addAll(known);
	}

	/**
	 * Binds one properties class as Spring Boot would, noting what it leaves unbound.
	 * @param prefix the class's prefix
	 * @param type the class
	 */
	void bind(ConfigurationPropertyName prefix, Class<?> type) {
		Set<ConfigurationPropertyName> left = null;
		try {
			this.binder.bind(prefix, Bindable.of(type),
					new Recorder(new NoUnboundElementsBindHandler(BindHandler.DEFAULT, new UnboundElementsSourceFilter())));
			left = Set.of();
		}
		catch (BindException ex) {
			left = unboundOrGroup(ex);
		}
		this.unbound.computeIfAbsent(prefix, (key) -> new ArrayList<>()).add(left);
	}

	/**
	 * The keys left unbound, or a value set on a group of properties ({@code waybill.outbox.relay:
	 * false}), which nothing binds either; {@code null} for any other failure, which the
	 * application's own binding reports.
	 */
	private @Nullable Set<ConfigurationPropertyName> unboundOrGroup(BindException ex) {
		Set<ConfigurationPropertyName> left = new LinkedHashSet<>();
		if (ex.getCause() instanceof UnboundConfigurationPropertiesException unboundKeys) {
			for (ConfigurationProperty property : unboundKeys.getUnboundProperties()) {
				this.properties.put(property.getName(), property);
				left.add(property.getName());
			}
			return left;
		}
		ConfigurationProperty property = find(ex.getName());
		Class<?> target = ex.getTarget().getType().resolve(Object.class);
		boolean group = !BeanUtils.isSimpleValueType(target) && !target.getName().startsWith("java.")
				&& !target.isEnum();
		if (group && property != null && property.getName().equals(ex.getName())
				&& !String.valueOf(property.getValue()).isBlank()) {
			this.properties.put(property.getName(), property);
			this.suggestions.put(property.getName(), propertyOf(ex.getName(), ex.getTarget().getType()));
			left.add(property.getName());
			return left;
		}
		return null;
	}

	private @Nullable ConfigurationProperty find(ConfigurationPropertyName name) {
		for (ConfigurationPropertySource source : this.sources) {
			ConfigurationProperty property = source.getConfigurationProperty(name);
			if (property != null) {
				return property;
			}
		}
		return null;
	}

	/** A property of the group, its {@code enabled} one when it has one: the likely intent. */
	private static @Nullable String propertyOf(ConfigurationPropertyName group, ResolvableType type) {
		String first = null;
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type.resolve(Object.class))) {
			if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
				continue;
			}
			String name = group + "." + ConfigurationPropertyName.adapt(descriptor.getName(), '.');
			if ("enabled".equals(descriptor.getName())) {
				return name;
			}
			first = (first != null) ? first : name;
		}
		return first;
	}

	/**
	 * Returns the keys no class binds, each with where it was set and the closest known property.
	 * @return the unknown keys, empty if none
	 */
	List<UnknownProperty> unknown() {
		NearestPropertyName nearest = new NearestPropertyName(this.known, this.keyedMaps);
		List<UnknownProperty> unknown = new ArrayList<>();
		this.properties.forEach((name, property) -> {
			if (isUnboundByAllCovering(name) && !isEmptyKnownProperty(name, property)) {
				String closest = this.suggestions.containsKey(name) ? this.suggestions.get(name) : nearest.closest(name);
				String origin = (property.getOrigin() != null) ? property.getOrigin().toString() : null;
				unknown.add(new UnknownProperty(name.toString(), origin, closest));
			}
		});
		return unknown;
	}

	/**
	 * Whether a class binds this very name: one set to an empty value ({@code purge-pending-after:}
	 * in YAML) binds to nothing and is left unbound, but it is no misspelling; it means unset.
	 */
	private boolean isEmptyKnownProperty(ConfigurationPropertyName name, ConfigurationProperty property) {
		return String.valueOf(property.getValue()).isBlank()
				&& this.known.stream().anyMatch((known) -> known.name().equals(name));
	}

	private boolean isUnboundByAllCovering(ConfigurationPropertyName name) {
		boolean covered = false;
		for (Map.Entry<ConfigurationPropertyName, List<@Nullable Set<ConfigurationPropertyName>>> entry : this.unbound
			.entrySet()) {
			if (entry.getKey().equals(name) || entry.getKey().isAncestorOf(name)) {
				for (Set<ConfigurationPropertyName> left : entry.getValue()) {
					if (left == null || !left.contains(name)) {
						return false;
					}
					covered = true;
				}
			}
		}
		return covered;
	}

	/** Notes each name the binder visits, the names to suggest besides the metadata's. */
	private final class Recorder extends AbstractBindHandler {

		Recorder(BindHandler parent) {
			super(parent);
		}

		@Override
		public <T> Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target, BindContext context) {
			ResolvableType type = target.getType();
			Class<?> raw = type.resolve(Object.class);
			boolean map = Map.class.isAssignableFrom(raw);
			boolean container = map || Collection.class.isAssignableFrom(raw) || raw.isArray();
			Class<?> element = map ? type.asMap().resolveGeneric(1)
					: raw.isArray() ? raw.getComponentType() : type.asCollection().resolveGeneric(0);
			boolean plain = element == null || element.isEnum() || BeanUtils.isSimpleValueType(element)
					|| element.getName().startsWith("java.");
			UnknownPropertiesCheck.this.known.add(new KnownName(name, container && plain));
			if (map && !plain) {
				UnknownPropertiesCheck.this.keyedMaps.add(name);
			}
			return super.onStart(name, target, context);
		}

	}

}
