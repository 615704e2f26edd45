package dev.waybill.outbox.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * One store besides the default one, under {@code waybill.stores.<name>}: the {@code DataSource}
 * bean it lives in and the schema of its tables there. Its table names are
 * {@code waybill.tables.*}, as the default store's.
 *
 * @since 0.1
 */
public class StoreProperties {

	/**
	 * Name of the DataSource bean the store lives in; the application's DataSource when not set
	 * (schema per tenant).
	 */
	private @Nullable String dataSource;

	/**
	 * Schema of the store's tables in its DataSource; created when missing. A lowercase SQL
	 * identifier; 'waybill.schema' when not set, which a store on the application's DataSource
	 * must not share.
	 */
	private @Nullable String schema;

	public @Nullable String getDataSource() {
		return this.dataSource;
	}

	public void setDataSource(@Nullable String dataSource) {
		this.dataSource = dataSource;
	}

	public @Nullable String getSchema() {
		return this.schema;
	}

	public void setSchema(@Nullable String schema) {
		this.schema = schema;
	}

}
