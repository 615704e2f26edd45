package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.outbox.store.UnknownStoreException;

class PerStoreTests {

	private final List<StoreAccess> registered = new ArrayList<>();

	private final AtomicInteger created = new AtomicInteger();

	private final PerStore<String> perStore = new PerStore<>(() -> List.copyOf(this.registered),
			(store) -> store.name() + "#" + this.created.incrementAndGet());

	@Test
	void eachStoreGetsItsOwnOnceAndKeepsItWhileRegistered() {
		this.registered.add(store("a", mock(DataSource.class)));
		this.registered.add(store("b", mock(DataSource.class)));
		assertThat(this.perStore.current()).containsExactly(Map.entry("a", "a#1"), Map.entry("b", "b#2"));
		assertThat(this.perStore.of("b")).isEqualTo("b#2");
		assertThat(this.created).hasValue(2);
	}

	@Test
	void aDeregisteredStoreLosesItsOwnAndOneRegisteredAgainOnAnotherDatabaseGetsANewOne() {
		StoreAccess first = store("a", mock(DataSource.class));
		this.registered.add(first);
		assertThat(this.perStore.of("a")).isEqualTo("a#1");
		this.registered.clear();
		assertThat(this.perStore.current()).isEmpty();
		assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(() -> this.perStore.of("a"))
			.withMessage("No store 'a' is registered; registered stores: [default]");
		this.registered.add(store("a", mock(DataSource.class)));
		assertThat(this.perStore.of("a")).isEqualTo("a#2");
	}

	private static StoreAccess store(String name, DataSource dataSource) {
		return new StoreAccess(name, dataSource, OutboxTables.inSchema("tenant_" + name),
				mock(PlatformTransactionManager.class));
	}

}
