package dev.waybill.outbox.rabbit.test;

import java.util.List;

import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.rabbit.ErrorQueues;
import dev.waybill.outbox.rabbit.internal.RabbitErrorQueues;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;

/**
 * Waybill's RabbitMQ error queues built by hand, for tests of other modules that inspect, redrive
 * and discard faulted messages with their own inbox and outbox and audit, without an application
 * context.
 */
public final class TestErrorQueues {

	private TestErrorQueues() {
	}

	/**
	 * Returns the error queues of the given consumers.
	 * @param transport Waybill's RabbitMQ transport
	 * @param consumers the consumers whose queues' error queues to manage
	 * @param transactionManager manages the DataSource of the outbox writer
	 * @param writer writes redriven messages to the outbox
	 * @param inbox clears the redriven messages' inbox rows
	 * @param wakeUp signalled after a redrive is committed
	 * @param audit records each admin action
	 * @return the error queues
	 */
	public static ErrorQueues create(Transport transport, List<? extends ConsumerRegistration<?>> consumers,
			PlatformTransactionManager transactionManager, OutboxWriter writer, InboxAdmin inbox, RelayWakeUp wakeUp,
			AdminAudit audit) {
		return new RabbitErrorQueues(TestRabbit.rabbit(transport), consumers, transactionManager, writer, inbox, wakeUp, audit);
	}

}
