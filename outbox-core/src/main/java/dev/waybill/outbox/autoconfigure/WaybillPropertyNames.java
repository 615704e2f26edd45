package dev.waybill.outbox.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;

/**
 * The property names Waybill binds under {@code waybill.*}, derived from two places: the
 * {@code @ConfigurationProperties} classes bound in the context, walked the way the binder walks
 * them (JavaBean properties, records, constructor parameters, nested classes), and the
 * configuration metadata that every Waybill module on the class path carries, so a module that
 * is present but not active on this host still knows its keys. Names compare as Spring Boot's
 * relaxed binding compares them (kebab case, camel case, underscores, environment variables), and
 * a map- or collection-valued property accepts any key below it.
 */
final class WaybillPropertyNames {

	static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(WaybillProperties.PREFIX);

	private static final Log logger = LogFactory.getLog(WaybillPropertyNames.class);

	private static final String[] METADATA = { "META-INF/spring-configuration-metadata.json",
			"META-INF/additional-spring-configuration-metadata.json" };

	/** A cycle of nested classes stops here; anything deeper is accepted. */
	private static final int MAX_DEPTH = 10;

	private final Set<ConfigurationPropertyName> leaves = new LinkedHashSet<>();

	/** Maps and collections: any key below them is theirs. */
	private final Set<ConfigurationPropertyName> containers = new LinkedHashSet<>();

	/**
	 * Maps from a key to a class of properties ({@code waybill.schedules.<name>.*}): below the key,
	 * only the value class's names, so a misspelt {@code cron} in one entry is caught too.
	 */
	private final Map<ConfigurationPropertyName, WaybillPropertyNames> keyedMaps = new LinkedHashMap<>();

	/**
	 * Adds the names a {@code @ConfigurationProperties} class binds below {@code prefix}.
	 * @param prefix the class's prefix
	 * @param type the class
	 */
	void addClass(ConfigurationPropertyName prefix, Class<?> type) {
		walk(prefix, type, 0);
	}

	/**
	 * Adds the {@code waybill.*} properties of every configuration metadata file the class loader sees.
	 * @param classLoader the application's class loader
	 */
	void addMetadata(@Nullable ClassLoader classLoader) {
		ClassLoader loader = (classLoader != null) ? classLoader : WaybillPropertyNames.class.getClassLoader();
		for (String resource : METADATA) {
			Enumeration<URL> urls;
			try {
				urls = loader.getResources(resource);
			}
			catch (IOException ex) {
				logger.debug("Cannot list " + resource, ex);
				continue;
			}
			while (urls.hasMoreElements()) {
				addMetadata(urls.nextElement());
			}
		}
	}

	private void addMetadata(URL url) {
		String json;
		try (InputStream in = url.openStream()) {
			json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			logger.debug("Cannot read " + url, ex);
			return;
		}
		if (!json.contains("\"" + WaybillProperties.PREFIX + ".")) {
			return; // most of the class path's metadata (Spring Boot's own) is not parsed at all
		}
		try {
			Object properties = JsonParserFactory.getJsonParser().parseMap(json).get("properties");
			if (!(properties instanceof List<?> list)) {
				return;
			}
			for (Object entry : list) {
				if (entry instanceof Map<?, ?> property && property.get("name") instanceof String name
						&& ConfigurationPropertyName.isValid(name)) {
					ConfigurationPropertyName parsed = ConfigurationPropertyName.of(name);
					if (ROOT.isAncestorOf(parsed)) {
						String type = (property.get("type") instanceof String value) ? value : "";
						add(parsed, isContainerTypeName(type));
					}
				}
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot parse " + url, ex);
		}
	}

	private static boolean isContainerTypeName(String type) {
		return type.startsWith("java.util.") && (type.contains("Map") || type.contains("List") || type.contains("Set")
				|| type.contains("Collection")) || type.endsWith("[]");
	}

	private void add(ConfigurationPropertyName name, boolean container) {
		this.leaves.add(name);
		if (container) {
			this.containers.add(name);
		}
	}

	private void walk(ConfigurationPropertyName prefix, Class<?> type, int depth) {
		if (depth > MAX_DEPTH) {
			add(prefix, true);
			return;
		}
		List<Property> properties = properties(type);
		if (properties.isEmpty()) {
			add(prefix, false); // a type bound from a single value, e.g. by a converter
			return;
		}
		for (Property property : properties) {
			ConfigurationPropertyName name = prefix.append(DataObjectPropertyName.toDashedForm(property.name()));
			Class<?> raw = property.type().resolve(Object.class);
			Class<?> mapValue = Map.class.isAssignableFrom(raw) ? property.type().asMap().resolveGeneric(1) : null;
			if (mapValue != null && !isValue(mapValue) && !Map.class.isAssignableFrom(mapValue)
					&& !Collection.class.isAssignableFrom(mapValue)) {
				WaybillPropertyNames entry = new WaybillPropertyNames();
				entry.walk(ConfigurationPropertyName.EMPTY, mapValue, depth + 1);
				this.keyedMaps.put(name, entry);
				add(name, true);
			}
			else if (Map.class.isAssignableFrom(raw) || Collection.class.isAssignableFrom(raw)
					|| (raw.isArray() && !raw.getComponentType().isPrimitive())) {
				add(name, true);
			}
			else if (isValue(raw)) {
				add(name, false);
			}
			else {
				walk(name, raw, depth + 1);
			}
		}
	}

	private static boolean isValue(Class<?> type) {
		String name = type.getName();
		return type.isPrimitive() || type.isEnum() || type.isArray() || type == Object.class || name.startsWith("java.")
				|| name.startsWith("javax.") || name.startsWith("jakarta.") || name.startsWith("org.springframework.");
	}

	private static List<Property> properties(Class<?> type) {
		List<Property> properties = new ArrayList<>();
		if (type.isRecord()) {
			for (RecordComponent component : type.getRecordComponents()) {
				properties.add(new Property(component.getName(), ResolvableType.forType(component.getGenericType())));
			}
			return properties;
		}
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			Method read = descriptor.getReadMethod();
			Method write = descriptor.getWriteMethod();
			if ("class".equals(descriptor.getName()) || (read == null && write == null)) {
				continue;
			}
			ResolvableType propertyType = (read != null) ? ResolvableType.forMethodReturnType(read, type)
					: ResolvableType.forMethodParameter(write, 0, type);
			properties.add(new Property(descriptor.getName(), propertyType));
		}
		if (properties.isEmpty()) {
			// Constructor binding: the parameters of the one constructor that takes any.
			Constructor<?>[] constructors = type.getDeclaredConstructors();
			if (constructors.length == 1 && constructors[0].getParameterCount() > 0) {
				String[] names = new DefaultParameterNameDiscoverer().getParameterNames(constructors[0]);
				for (int i = 0; names != null && i < names.length; i++) {
					properties.add(new Property(names[i],
							ResolvableType.forMethodParameter(new MethodParameter(constructors[0], i), type)));
				}
			}
		}
		return properties;
	}

	/**
	 * Tells whether Waybill binds the name, in any relaxed form.
	 * @param name a name under {@code waybill}
	 * @return whether it is a known property, a key of a known map or collection, or a group of them
	 */
	boolean isKnown(ConfigurationPropertyName name) {
		for (Map.Entry<ConfigurationPropertyName, WaybillPropertyNames> map : this.keyedMaps.entrySet()) {
			int below = map.getKey().getNumberOfElements() + 1;
			if (map.getKey().isAncestorOf(name) && name.getNumberOfElements() > below) {
				return map.getValue().isKnown(name.subName(below));
			}
		}
		for (ConfigurationPropertyName container : this.containers) {
			if (container.isAncestorOf(name)) {
				return true;
			}
		}
		for (ConfigurationPropertyName leaf : this.leaves) {
			if (leaf.equals(name) || name.isAncestorOf(leaf)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Tells whether the name is only a group of known properties ({@code waybill.retention.pacing},
	 * an entry of {@code waybill.inbox.endpoints}): no property itself, nor in a map or collection,
	 * so it binds no value of its own. A value set on it ({@code waybill.retention.pacing: false})
	 * would be ignored without a word.
	 * @param name a name under {@code waybill}
	 * @return whether it is a group and nothing else
	 */
	boolean isGroup(ConfigurationPropertyName name) {
		for (Map.Entry<ConfigurationPropertyName, WaybillPropertyNames> map : this.keyedMaps.entrySet()) {
			int below = map.getKey().getNumberOfElements() + 1;
			if (map.getKey().isAncestorOf(name) && name.getNumberOfElements() >= below) {
				return map.getValue().isGroup(name.subName(below));
			}
		}
		for (ConfigurationPropertyName container : this.containers) {
			if (container.equals(name) || container.isAncestorOf(name)) {
				return false;
			}
		}
		if (this.leaves.contains(name)) {
			return false;
		}
		for (ConfigurationPropertyName leaf : this.leaves) {
			if (name.isAncestorOf(leaf)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The environment variables Waybill's own build reads (its test harness, its browser test, the
	 * local RabbitMQ cluster script): not settings, although relaxed binding reads them as
	 * {@code waybill.*} keys, so no warning at every start-up of a service run where they are exported.
	 */
	private static final List<String> BUILD_VARIABLE_PREFIXES = List.of("WAYBILL_TEST_", "WAYBILL_RABBIT_CLUSTER_",
			"WAYBILL_REQUIRE_BROWSER", "WAYBILL_CHROMIUM", "WAYBILL_CHROMEDRIVER", "WAYBILL_INSTALL_CHROMIUM",
			"WAYBILL_UPDATE_SCREENSHOT");

	/**
	 * Tells whether an environment variable is one Waybill's own build reads rather than a setting.
	 * @param variable the variable's name
	 * @return whether the build reads it
	 */
	static boolean isBuildVariable(String variable) {
		String name = variable.toUpperCase(Locale.ROOT);
		return BUILD_VARIABLE_PREFIXES.stream().anyMatch(name::startsWith);
	}

	/**
	 * Tells whether an environment variable binds a known property in Spring Boot's legacy form,
	 * every {@code .} and {@code -} written as {@code _} ({@code WAYBILL_OUTBOX_RELAY_BATCH_SIZE}),
	 * which the binder still reads for a property's own value (not for map keys).
	 * @param variable the variable's name
	 * @return whether it is the legacy form of a known property
	 */
	boolean isKnownLegacyVariable(String variable) {
		String wanted = variable.toUpperCase(Locale.ROOT);
		for (ConfigurationPropertyName leaf : this.leaves) {
			if (leaf.toString().toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_').equals(wanted)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns the known property closest to an unknown name: the fewest edits, counted over the
	 * name's elements so that a missing or misspelt element costs less than an unrelated one.
	 * @param unknown the unknown name
	 * @return the closest known name, {@code null} when none is close
	 */
	@Nullable String closest(ConfigurationPropertyName unknown) {
		for (Map.Entry<ConfigurationPropertyName, WaybillPropertyNames> map : this.keyedMaps.entrySet()) {
			int below = map.getKey().getNumberOfElements() + 1;
			// >=: a value set on an entry itself (waybill.schedules.nightly=x) gets one of its properties
			if (map.getKey().isAncestorOf(unknown) && unknown.getNumberOfElements() >= below) {
				String dottedKey = dottedKey(map.getKey(), map.getValue(), unknown);
				if (dottedKey != null) {
					return dottedKey;
				}
				String inEntry = map.getValue().closest(unknown.subName(below));
				return (inEntry != null) ? unknown.chop(below) + "." + inEntry : null;
			}
		}
		List<String> target = elements(unknown, 0);
		String joined = String.join("", target);
		String best = null;
		// Beyond this the nearest name is a guess, not a correction.
		int bestCost = Math.max(3, (joined.length() - ROOT.toString().length()) / 2) + 1;
		for (ConfigurationPropertyName leaf : this.leaves) {
			List<String> candidate = elements(leaf, 0);
			String display = leaf.toString();
			if (this.containers.contains(leaf) && unknown.getNumberOfElements() > leaf.getNumberOfElements()) {
				// A map or collection: compare with the unknown key's own tail below it.
				int tail = leaf.getNumberOfElements();
				candidate.addAll(elements(unknown, tail));
				display = leaf + "." + unknown.subName(tail);
			}
			// Also letter by letter over the whole name: an element split or joined by mistake (an
			// environment variable's _ for a -) costs its letters, not whole elements.
			int cost = Math.min(distance(target, candidate), distance(joined, String.join("", candidate)));
			if (cost < bestCost) {
				bestCost = cost;
				best = display;
			}
		}
		return best;
	}

	/**
	 * A key with dots written without brackets ({@code waybill.inbox.endpoints.orders.eu.concurrency}):
	 * the binder reads {@code orders} as the key, but the elements after it name a property of an
	 * entry once some of them are taken as the key; returns the bracketed form
	 * ({@code waybill.inbox.endpoints[orders.eu].concurrency}), or {@code null}.
	 */
	private static @Nullable String dottedKey(ConfigurationPropertyName map, WaybillPropertyNames entry,
			ConfigurationPropertyName unknown) {
		int key = map.getNumberOfElements();
		if (unknown.getNumberOfElements() > key + 1
				&& entry.isKnown(ConfigurationPropertyName.of(unknown.getElement(key + 1, Form.DASHED)))) {
			return null; // the element after the key is an entry's own (retry, bindings): a misspelling below it
		}
		for (int end = key + 2; end < unknown.getNumberOfElements(); end++) {
			ConfigurationPropertyName rest = unknown.subName(end);
			if (entry.isKnown(rest) && !entry.isGroup(rest)) {
				List<String> keyElements = new ArrayList<>();
				for (int i = key; i < end; i++) {
					keyElements.add(unknown.getElement(i, Form.ORIGINAL));
				}
				return map + "[" + String.join(".", keyElements) + "]." + rest;
			}
		}
		return null;
	}

	private static List<String> elements(ConfigurationPropertyName name, int from) {
		List<String> elements = new ArrayList<>();
		for (int i = from; i < name.getNumberOfElements(); i++) {
			elements.add(name.getElement(i, Form.UNIFORM));
		}
		return elements;
	}

	/** Edit distance over elements: an element costs 3 to add or drop, its letters' distance to change. */
	private static int distance(List<String> a, List<String> b) {
		int[][] d = new int[a.size() + 1][b.size() + 1];
		for (int i = 0; i <= a.size(); i++) {
			d[i][0] = 3 * i;
		}
		for (int j = 0; j <= b.size(); j++) {
			d[0][j] = 3 * j;
		}
		for (int i = 1; i <= a.size(); i++) {
			for (int j = 1; j <= b.size(); j++) {
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 3, d[i][j - 1] + 3),
						d[i - 1][j - 1] + distance(a.get(i - 1), b.get(j - 1)));
			}
		}
		return d[a.size()][b.size()];
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int change = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + change);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	private record Property(String name, ResolvableType type) {
	}

}
