package dev.waybill.outbox.hibernate.jpa;

import java.util.Map;
import java.util.Objects;

import org.hibernate.boot.model.naming.Identifier;
import org.hibernate.boot.model.naming.PhysicalNamingStrategy;
import org.hibernate.engine.jdbc.env.spi.JdbcEnvironment;
import org.jspecify.annotations.Nullable;

/**
 * Maps the logical schema and table names of Waybill's entities ({@code waybill},
 * {@code outbox_state}, {@code outbox_message}, {@code inbox_state}) to the configured schema and
 * tables, and leaves every other name to the application's strategy.
 * The Spring Boot auto-configuration wraps the application's physical naming strategy with it,
 * so the entities follow {@code waybill.schema} and {@code waybill.tables.*}.
 * <p>
 * Table names are matched on their own (Hibernate names schema and table separately): with
 * non-default table names, an application entity whose table is also called, say,
 * {@code inbox_state} would be renamed too.
 *
 * @since 0.1
 */
public final class WaybillNamingStrategy implements PhysicalNamingStrategy {

	/** The logical schema of Waybill's entities. */
	public static final String SCHEMA = "waybill";

	/** The logical name of the outbox state table. */
	public static final String OUTBOX_STATE = "outbox_state";

	/** The logical name of the outbox message table. */
	public static final String OUTBOX_MESSAGE = "outbox_message";

	/** The logical name of the inbox state table. */
	public static final String INBOX_STATE = "inbox_state";

	private final PhysicalNamingStrategy delegate;

	private final String schema;

	private final Map<String, String> tables;

	/**
	 * Creates the strategy.
	 * @param delegate the application's strategy, for every other name
	 * @param schema the schema of Waybill's tables ({@code waybill.schema})
	 * @param outboxState the outbox state table ({@code waybill.tables.outbox-state})
	 * @param outboxMessage the outbox message table ({@code waybill.tables.outbox-message})
	 * @param inboxState the inbox state table ({@code waybill.tables.inbox-state})
	 */
	public WaybillNamingStrategy(PhysicalNamingStrategy delegate, String schema, String outboxState,
			String outboxMessage, String inboxState) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.schema = Objects.requireNonNull(schema, "schema must not be null");
		this.tables = Map.of(OUTBOX_STATE, Objects.requireNonNull(outboxState, "outboxState must not be null"),
				OUTBOX_MESSAGE, Objects.requireNonNull(outboxMessage, "outboxMessage must not be null"), INBOX_STATE,
				Objects.requireNonNull(inboxState, "inboxState must not be null"));
	}

	@Override
	public @Nullable Identifier toPhysicalCatalogName(@Nullable Identifier logicalName, JdbcEnvironment environment) {
		return this.delegate.toPhysicalCatalogName(logicalName, environment);
	}

	@Override
	public @Nullable Identifier toPhysicalSchemaName(@Nullable Identifier logicalName, JdbcEnvironment environment) {
		if (logicalName != null && SCHEMA.equals(logicalName.getText())) {
			return Identifier.toIdentifier(this.schema);
		}
		return this.delegate.toPhysicalSchemaName(logicalName, environment);
	}

	@Override
	public @Nullable Identifier toPhysicalTableName(@Nullable Identifier logicalName, JdbcEnvironment environment) {
		String table = (logicalName != null) ? this.tables.get(logicalName.getText()) : null;
		return (table != null) ? Identifier.toIdentifier(table)
				: this.delegate.toPhysicalTableName(logicalName, environment);
	}

	@Override
	public @Nullable Identifier toPhysicalSequenceName(@Nullable Identifier logicalName, JdbcEnvironment environment) {
		return this.delegate.toPhysicalSequenceName(logicalName, environment);
	}

	@Override
	public @Nullable Identifier toPhysicalColumnName(@Nullable Identifier logicalName, JdbcEnvironment environment) {
		return this.delegate.toPhysicalColumnName(logicalName, environment);
	}

	@Override
	public @Nullable Identifier toPhysicalTypeName(@Nullable Identifier logicalName, JdbcEnvironment environment) {
		return this.delegate.toPhysicalTypeName(logicalName, environment);
	}

}
