package dev.waybill.outbox.hibernate.app;

import dev.waybill.outbox.test.TestSchema;

/**
 * The test application's own tables ({@link Order}, {@link Parcel}), created in a test schema
 * beside Waybill's so that Hibernate can validate every mapping.
 */
public final class AppTables {

	private AppTables() {
	}

	/**
	 * Creates the application's tables.
	 * @param schema the schema to create them in
	 */
	public static void create(TestSchema schema) {
		schema.execute("CREATE TABLE " + schema.name() + ".orders (id uuid PRIMARY KEY, customer varchar(255), "
				+ "total_cents bigint NOT NULL, status varchar(255), version bigint)");
		schema.execute("CREATE TABLE " + schema.name() + ".parcels (id uuid PRIMARY KEY, label varchar(255))");
	}

}
