package dev.waybill.outbox.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The public surface of one module's compiled main classes, read from the directory (or jar) a
 * given class was loaded from, so that a module's tests can hold its API to a reviewed list.
 * <p>
 * A type is internal when a segment of its package is {@code internal}; every other public
 * top-level type is API and must be on the module's list. Public signatures of API types must not
 * mention internal types, so that a user never has to import one. Auto-configuration classes (those
 * listed in the module's {@code AutoConfiguration.imports}) are API by Spring Boot's convention,
 * but their bean methods return implementation types by nature, so their signatures are not
 * checked.
 */
public final class ApiSurface {

	private static final String AUTO_CONFIGURATIONS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

	private final String module;

	private final List<Class<?>> topLevelTypes;

	private final Set<String> autoConfigurations;

	private ApiSurface(String module, List<Class<?>> topLevelTypes, Set<String> autoConfigurations) {
		this.module = module;
		this.topLevelTypes = topLevelTypes;
		this.autoConfigurations = autoConfigurations;
	}

	/**
	 * Reads the module that {@code anchor} was compiled in.
	 * @param anchor any main class of the module
	 * @return the module's surface
	 */
	public static ApiSurface ofModuleOf(Class<?> anchor) {
		Path location;
		try {
			location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
		List<String> names = new ArrayList<>();
		Set<String> autoConfigurations = new TreeSet<>();
		try {
			if (Files.isDirectory(location)) {
				try (Stream<Path> files = Files.walk(location)) {
					files.filter(Files::isRegularFile)
						.map((file) -> location.relativize(file).toString().replace('\\', '/'))
						.forEach(names::add);
				}
				Path imports = location.resolve(AUTO_CONFIGURATIONS);
				if (Files.exists(imports)) {
					autoConfigurations.addAll(classNames(Files.readString(imports)));
				}
			}
			else {
				try (JarFile jar = new JarFile(location.toFile())) {
					jar.stream().map(JarEntry::getName).forEach(names::add);
					JarEntry imports = jar.getJarEntry(AUTO_CONFIGURATIONS);
					if (imports != null) {
						try (InputStream in = jar.getInputStream(imports)) {
							autoConfigurations.addAll(classNames(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
						}
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Class<?>> types = new ArrayList<>();
		for (String name : names) {
			if (!name.endsWith(".class") || name.contains("$") || name.endsWith("package-info.class")
					|| name.endsWith("module-info.class")) {
				continue;
			}
			String className = name.substring(0, name.length() - ".class".length()).replace('/', '.');
			try {
				types.add(Class.forName(className, false, anchor.getClassLoader()));
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException("Cannot load " + className + " from " + location, ex);
			}
		}
		return new ApiSurface(location.toString(), types, autoConfigurations);
	}

	/**
	 * A surface of given classes, for testing the checks themselves.
	 * @param name what the classes are, named in the messages
	 * @param topLevelTypes the classes
	 * @param autoConfigurations the names of those that are auto-configurations
	 * @return their surface
	 */
	public static ApiSurface of(String name, List<Class<?>> topLevelTypes, Set<String> autoConfigurations) {
		return new ApiSurface(name, List.copyOf(topLevelTypes), Set.copyOf(autoConfigurations));
	}

	private static List<String> classNames(String imports) {
		return imports.lines().map(String::strip).filter((line) -> !line.isEmpty() && !line.startsWith("#")).toList();
	}

	/**
	 * Whether a type is not API: it belongs to an internal package or to the kernel the modules
	 * share ({@code dev.waybill.kernel}).
	 * @param type any type
	 * @return whether a segment of its package is {@code internal}, or it is the kernel's
	 */
	public static boolean isInternal(Class<?> type) {
		while (type.isArray()) {
			type = type.getComponentType();
		}
		if (type.isPrimitive()) {
			return false;
		}
		String name = type.getPackageName();
		return name.startsWith("dev.waybill.")
				&& (("." + name + ".").contains(".internal.") || name.equals("dev.waybill.kernel"));
	}

	/**
	 * The public top-level types outside internal packages.
	 * @return their names, sorted
	 */
	public Set<String> apiTypes() {
		Set<String> api = new TreeSet<>();
		for (Class<?> type : this.topLevelTypes) {
			if (Modifier.isPublic(type.getModifiers()) && !isInternal(type)) {
				api.add(type.getName());
			}
		}
		return api;
	}

	/**
	 * Problems of the module's API types against the reviewed list: public types outside internal
	 * packages that are not on it, and entries that are no longer public API types.
	 * @param reviewed the reviewed API types' names
	 * @param listHolder where the list lives, named in the messages
	 * @return one message per problem, empty when there is none
	 */
	public List<String> unreviewedApiTypes(Set<String> reviewed, String listHolder) {
		Set<String> api = apiTypes();
		List<String> problems = new ArrayList<>();
		for (String name : api) {
			if (!reviewed.contains(name)) {
				problems.add(name + " is public in an API package but not on the reviewed API list. If users need "
						+ "not see it, move it to an 'internal' package (e.g. " + internalPackageFor(name)
						+ ") or make it package-private; if it is API, add it to " + listHolder + ".");
			}
		}
		for (String name : reviewed) {
			if (!api.contains(name)) {
				problems.add(name + " is on the reviewed API list in " + listHolder
						+ " but is not a public type outside the internal packages of " + this.module
						+ ": remove it from the list.");
			}
		}
		return problems;
	}

	private static String internalPackageFor(String className) {
		String pkg = className.substring(0, className.lastIndexOf('.'));
		for (String base : List.of("dev.waybill.outbox.rabbit", "dev.waybill.outbox.hibernate", "dev.waybill.inbox",
				"dev.waybill.retention", "dev.waybill.outbox")) {
			if (pkg.equals(base) || pkg.startsWith(base + ".")) {
				return base + ".internal" + pkg.substring(base.length());
			}
		}
		return pkg + ".internal";
	}

	/**
	 * Where public or protected members of API types mention internal types, keyed
	 * {@code Owner#member} (constructors are {@code Owner#<init>}, the type's own declaration
	 * {@code Owner#<type>}), with the internal types each mentions.
	 * @return the exposures, sorted by key
	 */
	public Map<String, Set<String>> internalTypesInApiSignatures() {
		Map<String, Set<String>> exposures = new TreeMap<>();
		for (Class<?> type : this.topLevelTypes) {
			if (Modifier.isPublic(type.getModifiers()) && !isInternal(type)
					&& !this.autoConfigurations.contains(type.getName())) {
				collect(type, exposures);
			}
		}
		return exposures;
	}

	private static void collect(Class<?> type, Map<String, Set<String>> exposures) {
		String owner = type.getName();
		Set<String> found = new TreeSet<>();
		addInternal(type.getGenericSuperclass(), found, new HashSet<>());
		for (Type implemented : type.getGenericInterfaces()) {
			addInternal(implemented, found, new HashSet<>());
		}
		for (TypeVariable<?> variable : type.getTypeParameters()) {
			addInternal(variable, found, new HashSet<>());
		}
		record(exposures, owner + "#<type>", found);
		boolean extendable = !Modifier.isFinal(type.getModifiers());
		for (Constructor<?> constructor : type.getDeclaredConstructors()) {
			if (visible(constructor, extendable)) {
				record(exposures, owner + "#<init>", internalIn(constructor));
			}
		}
		for (Method method : type.getDeclaredMethods()) {
			if (visible(method, extendable) && !method.isBridge()) {
				Set<String> mentioned = internalIn(method);
				addInternal(method.getGenericReturnType(), mentioned, new HashSet<>());
				record(exposures, owner + "#" + method.getName(), mentioned);
			}
		}
		for (Field field : type.getDeclaredFields()) {
			if (visible(field, extendable)) {
				Set<String> mentioned = new TreeSet<>();
				addInternal(field.getGenericType(), mentioned, new HashSet<>());
				record(exposures, owner + "#" + field.getName(), mentioned);
			}
		}
		for (Class<?> nested : type.getDeclaredClasses()) {
			int modifiers = nested.getModifiers();
			if (Modifier.isPublic(modifiers) || (extendable && Modifier.isProtected(modifiers))) {
				collect(nested, exposures);
			}
		}
	}

	private static <M extends AnnotatedElement & Member> boolean visible(M member, boolean extendable) {
		int modifiers = member.getModifiers();
		return !member.isSynthetic() && (Modifier.isPublic(modifiers) || (extendable && Modifier.isProtected(modifiers)));
	}

	private static Set<String> internalIn(Executable executable) {
		Set<String> mentioned = new TreeSet<>();
		for (Type parameter : executable.getGenericParameterTypes()) {
			addInternal(parameter, mentioned, new HashSet<>());
		}
		for (Type thrown : executable.getGenericExceptionTypes()) {
			addInternal(thrown, mentioned, new HashSet<>());
		}
		for (TypeVariable<?> variable : executable.getTypeParameters()) {
			addInternal(variable, mentioned, new HashSet<>());
		}
		return mentioned;
	}

	private static void addInternal(Type type, Set<String> mentioned, Set<Type> seen) {
		if (type == null || !seen.add(type)) {
			return;
		}
		if (type instanceof Class<?> raw) {
			if (raw.isArray()) {
				addInternal(raw.getComponentType(), mentioned, seen);
			}
			else if (isInternal(raw)) {
				mentioned.add(raw.getName());
			}
		}
		else if (type instanceof ParameterizedType parameterized) {
			addInternal(parameterized.getRawType(), mentioned, seen);
			addInternal(parameterized.getOwnerType(), mentioned, seen);
			for (Type argument : parameterized.getActualTypeArguments()) {
				addInternal(argument, mentioned, seen);
			}
		}
		else if (type instanceof GenericArrayType array) {
			addInternal(array.getGenericComponentType(), mentioned, seen);
		}
		else if (type instanceof WildcardType wildcard) {
			for (Type bound : wildcard.getUpperBounds()) {
				addInternal(bound, mentioned, seen);
			}
			for (Type bound : wildcard.getLowerBounds()) {
				addInternal(bound, mentioned, seen);
			}
		}
		else if (type instanceof TypeVariable<?> variable) {
			for (Type bound : variable.getBounds()) {
				addInternal(bound, mentioned, seen);
			}
		}
	}

	private static void record(Map<String, Set<String>> exposures, String key, Set<String> mentioned) {
		if (!mentioned.isEmpty()) {
			exposures.computeIfAbsent(key, (k) -> new TreeSet<>()).addAll(mentioned);
		}
	}

	/**
	 * Problems of the API signatures: members that mention internal types.
	 * @return one message per problem, empty when there is none
	 */
	public List<String> internalTypesExposed() {
		List<String> problems = new ArrayList<>();
		internalTypesInApiSignatures().forEach((key, types) -> problems.add(key
				+ " is public API but its signature mentions internal " + types
				+ ": users would have to import an internal type. Change the signature to use API types, or make "
				+ "the member package-private (an internal factory can build what needs the internal type)."));
		return problems;
	}

}
