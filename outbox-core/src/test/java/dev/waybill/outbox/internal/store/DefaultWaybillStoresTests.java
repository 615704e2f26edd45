package dev.waybill.outbox.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The registry's rules: a store is registered only once its tables could be migrated, never
 * under a name or in tables another store has, and the default store stays.
 */
class DefaultWaybillStoresTests {

	private final DataSource application = new SimpleDriverDataSource();

	private final DataSource tenant = new SimpleDriverDataSource();

	private final List<String> migrated = new CopyOnWriteArrayList<>();

	private final List<String> told = new CopyOnWriteArrayList<>();

	private final DefaultWaybillStores stores = newStores((dataSource, tables) -> this.migrated.add(tables.schema()));

	DefaultWaybillStoresTests() {
		this.stores.addListener(new DefaultWaybillStores.Listener() {
			@Override
			public void registered(RegisteredStore store) {
				DefaultWaybillStoresTests.this.told.add("+" + store.name());
			}

			@Override
			public void deregistered(RegisteredStore store) {
				DefaultWaybillStoresTests.this.told.add("-" + store.name());
			}
		});
	}

	@Test
	void aStoreIsMigratedThenRegisteredWithTheDefaultStoresTableNamesAndDeregistered() {
		this.stores.register(new WaybillStore("acme", this.tenant, "tenant_acme"));
		assertThat(this.migrated).containsExactly("tenant_acme");
		assertThat(this.stores.all()).extracting(WaybillStore::name).containsExactly("default", "acme");
		assertThat(this.stores.registered().get(1).tables())
			.isEqualTo(new OutboxTables("tenant_acme", "state", "messages", "inbox"));
		assertThat(this.stores.deregister("acme")).isTrue();
		assertThat(this.stores.deregister("acme")).isFalse();
		assertThat(this.stores.find("acme")).isEmpty();
		assertThat(this.told).containsExactly("+acme", "-acme");
	}

	@Test
	void aNameOrTablesTakenAlreadyAreRefused() {
		this.stores.register(new WaybillStore("acme", this.tenant, "waybill"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.stores.register(new WaybillStore("acme", this.tenant, "other")))
			.withMessageContaining("named 'acme' is registered already");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.stores.register(new WaybillStore("globex", this.application, "waybill")))
			.withMessageContaining("would share the tables of store 'default'");
		assertThat(this.stores.all()).extracting(WaybillStore::name).containsExactly("default", "acme");
	}

	@Test
	void aStoreWhoseTablesCannotBeMigratedIsNotRegistered() {
		DefaultWaybillStores failing = newStores((dataSource, tables) -> {
			throw new IllegalStateException("permission denied for database");
		});
		assertThatIllegalStateException()
			.isThrownBy(() -> failing.register(new WaybillStore("acme", this.tenant, "tenant_acme")))
			.withMessageContaining("tenant_acme.state of store 'acme', so it was not registered")
			.withMessageContaining("permission denied");
		assertThat(failing.find("acme")).isEmpty();
	}

	@Test
	void theDefaultStoreCannotBeDeregistered() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.stores.deregister("default"));
	}

	@Test
	void aStoreNameOutsideTheRuleIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> new WaybillStore("Acme Corp", this.tenant, "acme"))
			.withMessageContaining("Store name 'Acme Corp' is not valid");
		assertThatIllegalArgumentException().isThrownBy(() -> new WaybillStore("acme", this.tenant, "Tenant-Acme"))
			.withMessageContaining("Schema 'Tenant-Acme' of store 'acme' is not valid");
	}

	private DefaultWaybillStores newStores(DefaultWaybillStores.Migration migration) {
		OutboxTables tables = new OutboxTables("waybill", "state", "messages", "inbox");
		JdbcOutboxStore store = new JdbcOutboxStore(this.application, tables);
		return new DefaultWaybillStores(
				new RegisteredStore(new WaybillStore(WaybillStore.DEFAULT_NAME, this.application, "waybill"), tables, store,
						store),
				migration);
	}

}
