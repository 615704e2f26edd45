package dev.waybill.schedules;

import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.schedules.internal.JdbcScheduler;

/**
 * A scheduler in a process of its own, for the crash test to kill. Arguments: JDBC URL, user,
 * password, schema, schedule name, cron, exchange, hold in milliseconds. Each tick holds its
 * transaction (and so the schedule row's lock) for the hold time after printing
 * {@code HOLDING <tick>}, so the test can kill it inside a tick.
 */
public final class SchedulerProcess {

	private SchedulerProcess() {
	}

	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setUsername(args[1]);
		config.setPassword(args[2]);
		config.setMaximumPoolSize(2);
		HikariDataSource dataSource = new HikariDataSource(config);
		OutboxTables tables = OutboxTables.inSchema(args[3]);
		long hold = Long.parseLong(args[7]);
		OutboxPublisher publisher = TestOutbox.builder(dataSource, tables).sourceHost("child").build().publisher();
		Schedule schedule = Schedule.cron(args[4], args[5], (tick, outbox) -> {
			outbox.send(args[6], new Beat(tick.scheduledAt().toString(), "child"));
			System.out.println("HOLDING " + tick.scheduledAt());
			System.out.flush();
			try {
				Thread.sleep(hold);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		JdbcScheduler scheduler = new JdbcScheduler(dataSource, new AuxiliaryTables(tables),
				new DataSourceTransactionManager(dataSource), publisher, List.of(schedule), Duration.ofMillis(200));
		scheduler.start();
		System.out.println("SCHEDULER STARTED");
		System.out.flush();
		Thread.currentThread().join(); // until killed
	}

	/** The message each tick publishes. */
	public record Beat(String at, String by) {
	}

}
