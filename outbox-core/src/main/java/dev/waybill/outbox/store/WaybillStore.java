package dev.waybill.outbox.store;

import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

import dev.waybill.kernel.SqlIdentifiers;

/**
 * One outbox: a {@link DataSource} and the tables Waybill keeps in it, with a name. Several stores
 * may share a {@code DataSource} in different schemas (schema per tenant); each has its own
 * scopes, relay lane, leases and wake-ups, and nothing Waybill does for one store reads or writes
 * another's rows.
 *
 * @param name the store's name: lowercase letters, digits, {@code -} and {@code _}, starting with a
 * letter or a digit, at most 63 characters; it names the store in logs, meters and the console
 * @param dataSource the database; the business transactions that publish to this store must be
 * managed for it (or for an {@code AbstractRoutingDataSource} whose connection is this database's)
 * @param schema the schema of Waybill's tables in that database (named as {@code waybill.tables.*}
 * says), created when the store is registered; a lowercase SQL identifier
 * @since 0.1
 */
public record WaybillStore(String name, DataSource dataSource, String schema) {

	/** The name of the store on the application's {@code DataSource}. */
	public static final String DEFAULT_NAME = "default";

	private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

	/**
	 * Checks the arguments.
	 * @throws IllegalArgumentException naming a name that breaks the rule
	 */
	public WaybillStore {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		Objects.requireNonNull(schema, "schema must not be null");
		checkName(name);
		String problem = SqlIdentifiers.problem(schema);
		if (problem != null) {
			throw new IllegalArgumentException("Schema '" + schema + "' of store '" + name + "' is not valid: the name "
					+ problem);
		}
	}

	/**
	 * Checks a store name.
	 * @param name the name
	 * @throws IllegalArgumentException naming the name and the rule it breaks
	 */
	public static void checkName(String name) {
		if (!NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("Store name '" + name + "' is not valid: use 1 to 63 lowercase letters, "
					+ "digits, '-' or '_', starting with a letter or a digit (e.g. 'tenant-42')");
		}
	}

}
