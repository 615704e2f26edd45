package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionSynchronizationManager;

class DirectDispatchRecordTests {

	@AfterEach
	void clear() {
		TransactionSynchronizationManager.unbindResourceIfPossible(DirectDispatchRecord.RESOURCE_KEY);
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.clearSynchronization();
		}
	}

	@Test
	void outsideATransactionNothingWasDispatchedDirectly() {
		assertThat(DirectDispatchRecord.currentTransactionDispatchedDirectly()).isFalse();
	}

	@Test
	void aTransactionWithoutARecordWakesTheRelays() throws Exception {
		TransactionSynchronizationManager.initSynchronization();
		assertThat(DirectDispatchRecord.currentTransactionDispatchedDirectly()).isFalse();
		RelayWakeUp wakeUp = new RelayWakeUp();
		wakeUp.committed();
		assertThat(wakeUp.await(Duration.ZERO)).isTrue();
	}

	@Test
	void aTransactionWhoseEveryScopeWasDispatchedDirectlyWakesNoRelay() throws Exception {
		TransactionSynchronizationManager.initSynchronization();
		TransactionSynchronizationManager.bindResource(DirectDispatchRecord.RESOURCE_KEY,
				(DirectDispatchRecord) () -> true);
		boolean[] remote = new boolean[1];
		RelayWakeUp wakeUp = new RelayWakeUp(() -> remote[0] = true);
		wakeUp.committed();
		assertThat(wakeUp.await(Duration.ZERO)).isFalse();
		assertThat(remote[0]).as("remote signal").isFalse();
	}

	@Test
	void aTransactionThatAlsoWroteOtherScopesWakesTheRelays() throws Exception {
		TransactionSynchronizationManager.initSynchronization();
		TransactionSynchronizationManager.bindResource(DirectDispatchRecord.RESOURCE_KEY,
				(DirectDispatchRecord) () -> false);
		boolean[] remote = new boolean[1];
		RelayWakeUp wakeUp = new RelayWakeUp(() -> remote[0] = true);
		wakeUp.committed();
		assertThat(wakeUp.await(Duration.ZERO)).isTrue();
		assertThat(remote[0]).as("remote signal").isTrue();
	}

}
