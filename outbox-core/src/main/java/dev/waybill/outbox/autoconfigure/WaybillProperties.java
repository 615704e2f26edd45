package dev.waybill.outbox.autoconfigure;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.SqlIdentifiers;
import dev.waybill.outbox.internal.autoconfigure.PropertyChecks;
import dev.waybill.outbox.internal.autoconfigure.RelaySettingsMapper;

/**
 * Configuration of Waybill's outbox under {@code waybill.*}. Checked as soon as it is bound, on
 * every host (also where no relay runs), so a bad value fails start-up naming the property.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillProperties.PREFIX)
public class WaybillProperties implements InitializingBean {

	/** The prefix of every Waybill property. */
	public static final String PREFIX = "waybill";

	/**
	 * Database schema that holds Waybill's tables; created when missing. A lowercase SQL identifier.
	 */
	private String schema = "waybill";

	private final Tables tables = new Tables();

	private final Liquibase liquibase = new Liquibase();

	@NestedConfigurationProperty
	private final OutboxProperties outbox = new OutboxProperties();

	@NestedConfigurationProperty
	private final NotificationProperties notifications = new NotificationProperties();

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

	public OutboxProperties getOutbox() {
		return this.outbox;
	}

	public NotificationProperties getNotifications() {
		return this.notifications;
	}

	@Override
	public void afterPropertiesSet() {
		validate();
	}

	/**
	 * Checks every property, including the relay's where this instance runs no relay.
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property, its
	 * value, the rule and the fix
	 */
	public void validate() {
		toTables();
		this.outbox.maxMessageBytesChecked();
		this.outbox.maxPendingChecked();
		RelaySettingsMapper.toRelaySettings(this.outbox);
		PropertyChecks.positive("waybill.notifications.poll-interval", this.notifications.getPollInterval());
	}

	/**
	 * Returns the configured tables.
	 * @return the tables
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	OutboxTables toTables() {
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

}
