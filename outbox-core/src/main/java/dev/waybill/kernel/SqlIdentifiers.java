package dev.waybill.kernel;

import java.util.Set;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Checks names that Waybill puts into SQL unquoted (schema and table names). Only lowercase
 * identifiers that PostgreSQL reads back unchanged are accepted, so no quoting or case folding
 * can make two spellings name different objects, and no input can inject SQL.
 *
 * @since 0.1
 */
public final class SqlIdentifiers {

	/** PostgreSQL truncates identifiers longer than this many bytes. */
	public static final int MAX_LENGTH = 63;

	private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

	// PostgreSQL's reserved key words, which cannot name a table or schema unquoted.
	private static final Set<String> RESERVED = Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
			"asc", "asymmetric", "authorization", "binary", "both", "case", "cast", "check", "collate", "collation",
			"column", "concurrently", "constraint", "create", "cross", "current_catalog", "current_date",
			"current_role", "current_schema", "current_time", "current_timestamp", "current_user", "default",
			"deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign",
			"freeze", "from", "full", "grant", "group", "having", "ilike", "in", "initially", "inner", "intersect",
			"into", "is", "isnull", "join", "lateral", "leading", "left", "like", "limit", "localtime",
			"localtimestamp", "natural", "not", "notnull", "null", "offset", "on", "only", "or", "order", "outer",
			"overlaps", "placing", "primary", "references", "returning", "right", "select", "session_user",
			"similar", "some", "symmetric", "system_user", "table", "tablesample", "then", "to", "trailing", "true",
			"union", "unique", "user", "using", "variadic", "verbose", "when", "where", "window", "with");

	private SqlIdentifiers() {
	}

	/**
	 * Says what is wrong with {@code name} as an unquoted identifier.
	 * @param name the candidate
	 * @return the problem, or {@literal null} when the name is valid
	 */
	public static @Nullable String problem(@Nullable String name) {
		if (name == null || name.isEmpty()) {
			return "must not be empty";
		}
		if (!IDENTIFIER.matcher(name).matches()) {
			return "must be a lowercase SQL identifier: a letter a-z or '_' followed by letters a-z, digits or '_'";
		}
		if (name.length() > MAX_LENGTH) {
			return "must be at most " + MAX_LENGTH + " characters long";
		}
		if (RESERVED.contains(name)) {
			return "is a reserved word in PostgreSQL";
		}
		return null;
	}

	/**
	 * Returns {@code name} when it is a valid unquoted identifier.
	 * @param what what the name names, for the error message, e.g. {@code "schema"}
	 * @param name the candidate
	 * @return {@code name}
	 * @throws IllegalArgumentException naming {@code what}, the value and the rule
	 */
	public static String require(String what, @Nullable String name) {
		String problem = problem(name);
		if (problem != null) {
			throw new IllegalArgumentException(what + " '" + name + "' " + problem);
		}
		return name;
	}

}
