package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import dev.waybill.outbox.jdbc.OutboxTables;
import dev.waybill.outbox.jdbc.SqlIdentifiers;

/**
 * Configuration of Waybill's outbox under {@code waybill.*}.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillProperties.PREFIX)
public class WaybillProperties {

	/** The prefix of every Waybill property. */
	public static final String PREFIX = "waybill";

	/**
	 * Database schema that holds Waybill's tables; created when missing. A lowercase SQL identifier.
	 */
	private String schema = "waybill";

	private final Tables tables = new Tables();

	private final Liquibase liquibase = new Liquibase();

	private final Outbox outbox = new Outbox();

	public String getSchema() {
		return this.schema;
	}

	public void setSchema(String schema) {
		this.schema = schema;
	}

	public Tables getTables() {
		return this.tables;
	}

	public Liquibase getLiquibase() {
		return this.liquibase;
	}

	public Outbox getOutbox() {
		return this.outbox;
	}

	/**
	 * Returns the configured tables.
	 * @return the tables
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	public OutboxTables toTables() {
		OutboxTables defaults = OutboxTables.defaults();
		String schema = identifier("waybill.schema", this.schema, defaults.schema());
		String outboxState = identifier("waybill.tables.outbox-state", this.tables.outboxState, defaults.outboxState());
		String outboxMessage = identifier("waybill.tables.outbox-message", this.tables.outboxMessage,
				defaults.outboxMessage());
		String inboxState = identifier("waybill.tables.inbox-state", this.tables.inboxState, defaults.inboxState());
		try {
			return new OutboxTables(schema, outboxState, outboxMessage, inboxState);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("waybill.schema", schema,
					ex.getMessage() + " (waybill.tables.outbox-state is '" + outboxState + "')");
		}
	}

	private static String identifier(String property, String value, String example) {
		String problem = SqlIdentifiers.problem(value);
		if (problem != null) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"The name " + problem + ". Set " + property + " to a name such as '" + example + "'.");
		}
		return value;
	}

	/**
	 * Names of Waybill's tables inside {@code waybill.schema}.
	 */
	public static class Tables {

		/**
		 * Table of outbox scopes: one row per transaction that published, with delivery status.
		 */
		private String outboxState = "outbox_state";

		/**
		 * Table of outbox messages: envelope and body of every published message.
		 */
		private String outboxMessage = "outbox_message";

		/**
		 * Table of inbox state: one row per consumed message and consumer, for deduplication.
		 */
		private String inboxState = "inbox_state";

		public String getOutboxState() {
			return this.outboxState;
		}

		public void setOutboxState(String outboxState) {
			this.outboxState = outboxState;
		}

		public String getOutboxMessage() {
			return this.outboxMessage;
		}

		public void setOutboxMessage(String outboxMessage) {
			this.outboxMessage = outboxMessage;
		}

		public String getInboxState() {
			return this.inboxState;
		}

		public void setInboxState(String inboxState) {
			this.inboxState = inboxState;
		}

	}

	/**
	 * How Waybill's schema is created.
	 */
	public static class Liquibase {

		/**
		 * Whether to apply Waybill's Liquibase changelog at start-up. Turn off when the application's
		 * own master changelog includes it.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Writing to the outbox.
	 */
	public static class Outbox {

		/**
		 * Largest serialized message body accepted by publish; larger ones fail inside the business
		 * transaction.
		 */
		private DataSize maxMessageBytes = DataSize.ofMegabytes(1);

		public DataSize getMaxMessageBytes() {
			return this.maxMessageBytes;
		}

		public void setMaxMessageBytes(DataSize maxMessageBytes) {
			this.maxMessageBytes = maxMessageBytes;
		}

		/**
		 * Returns the body size limit in bytes.
		 * @return the limit
		 * @throws InvalidConfigurationPropertyValueException when it is not positive
		 */
		public long maxMessageBytesChecked() {
			if (this.maxMessageBytes == null || this.maxMessageBytes.toBytes() < 1) {
				throw new InvalidConfigurationPropertyValueException("waybill.outbox.max-message-bytes",
						this.maxMessageBytes, "The limit must be at least 1B. Set it to a size such as 1MB.");
			}
			return this.maxMessageBytes.toBytes();
		}

	}

}
