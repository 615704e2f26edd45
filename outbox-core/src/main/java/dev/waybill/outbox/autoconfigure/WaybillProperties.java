package dev.waybill.outbox.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.SqlIdentifiers;
import dev.waybill.outbox.internal.autoconfigure.PropertyChecks;
import dev.waybill.outbox.internal.autoconfigure.RelaySettingsMapper;
import dev.waybill.outbox.store.WaybillStore;

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

	/**
	 * Stores besides the default one (the application's DataSource and waybill.schema), by name:
	 * a database or a schema per tenant, or a shard. Names are lowercase letters, digits, '-' and
	 * '_'. Each takes 'data-source' (the name of the DataSource bean it lives in; the application's
	 * when not set) and 'schema' (of its tables there; waybill.schema when not set).
	 */
	private final Map<String, StoreProperties> stores = new LinkedHashMap<>();

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

	public Map<String, StoreProperties> getStores() {
		return this.stores;
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
		OutboxTables tables = toTables();
		this.stores.keySet().forEach((name) -> storeSchema(name, tables));
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

	/**
	 * Returns the schema of a store of {@code waybill.stores}.
	 * @param name the store's name
	 * @param defaults the default store's tables
	 * @return its schema, the default store's when not set
	 * @throws InvalidConfigurationPropertyValueException naming an invalid store name or schema
	 */
	String storeSchema(String name, OutboxTables defaults) {
		String property = "waybill.stores." + name;
		try {
			WaybillStore.checkName(name);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property, name, ex.getMessage());
		}
		StoreProperties store = this.stores.get(name);
		String schema = (store != null && store.getSchema() != null) ? store.getSchema() : defaults.schema();
		return identifier(property + ".schema", schema, "tenant_" + name.replace('-', '_'));
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
