package dev.waybill.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.kernel.HostNames;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * {@code @Outbox} and {@link OutboxPublisher} in a Spring Boot JDBC application, end to end
 * against PostgreSQL: the OrderService of DESIGN.md written against outbox-core alone.
 */
class OutboxPublisherIntegrationTests {

	private static TestSchema schema;

	private static JdbcTemplate jdbc;

	private static ApplicationContextRunner runner;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("publisher");
		jdbc = new JdbcTemplate(schema.dataSource());
		jdbc.execute("CREATE TABLE " + schema.name() + ".orders (id uuid PRIMARY KEY, customer text NOT NULL, total int NOT NULL)");
		runner = WaybillContext.runner(schema.name()).withUserConfiguration(Application.class);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void commitWritesTheBusinessRowAndOneScopeWithItsMessagesInPublishOrder() {
		run((context) -> {
			int before = count("outbox_state");
			UUID order = context.getBean(OrderService.class).place("ada", 3);

			assertThat(jdbc.queryForObject("SELECT customer FROM " + schema.name() + ".orders WHERE id = ?", String.class, order))
				.isEqualTo("ada");
			assertThat(count("outbox_state")).isEqualTo(before + 1);
			List<Map<String, Object>> messages = messagesOfLatestScope();
			assertThat(messages).extracting((m) -> body(m)).containsExactly(
					"{\"orderId\":\"" + order + "\",\"line\":1}", "{\"orderId\":\"" + order + "\",\"line\":2}",
					"{\"orderId\":\"" + order + "\",\"line\":3}");
			Map<String, Object> first = messages.get(0);
			UUID messageId = (UUID) first.get("message_id");
			assertThat(messageId.version()).isEqualTo(7);
			assertThat(first).containsEntry("destination", "test.order-placed")
				.containsEntry("message_type", "test.order-placed")
				.containsEntry("content_type", "application/json")
				.containsEntry("routing_key", "")
				.containsEntry("source_host", HostNames.local())
				.containsEntry("conversation_id", messageId.toString())
				.containsEntry("correlation_id", null);
			assertThat(((Timestamp) first.get("created_at")).toInstant()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));
			Map<String, Object> state = latestScope();
			assertThat(state).containsEntry("status", "pending").containsEntry("attempts", 0)
				.containsEntry("published_at", null).containsEntry("lease_owner", null);
		});
	}

	@Test
	void rollbackWritesNoOutboxRow() {
		run((context) -> {
			int scopes = count("outbox_state");
			int messages = count("outbox_message");
			int orders = jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".orders", Integer.class);

			assertThatIllegalStateException().isThrownBy(() -> context.getBean(OrderService.class).placeAndFail("bob"))
				.withMessage("payment declined");

			assertThat(count("outbox_state")).isEqualTo(scopes);
			assertThat(count("outbox_message")).isEqualTo(messages);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".orders", Integer.class)).isEqualTo(orders);
		});
	}

	@Test
	void aNestedOutboxMethodJoinsTheOuterScope() {
		run((context) -> {
			int scopes = count("outbox_state");
			context.getBean(CheckoutService.class).checkout("cyd");

			assertThat(count("outbox_state")).isEqualTo(scopes + 1);
			assertThat(messagesOfLatestScope()).extracting((m) -> m.get("destination"))
				.containsExactly("test.order-placed", "test.order-placed", "test.order-placed", "test.checkout-completed");
		});
	}

	@Test
	void aClassLevelOutboxMakesEveryMethodAScope() {
		run((context) -> {
			int scopes = count("outbox_state");
			context.getBean(ClassLevelService.class).notifyShipped("parcel-1");

			assertThat(count("outbox_state")).isEqualTo(scopes + 1);
			assertThat(messagesOfLatestScope()).extracting((m) -> m.get("message_type"))
				.containsExactly(Shipped.class.getCanonicalName());
		});
	}

	@Test
	void whatANestedTransactionPublishedGoesWithItsSavepointWhenItRollsBackAndStaysWhenItCommits() {
		run((context) -> {
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			TransactionTemplate outer = context.getBean(TransactionTemplate.class);
			TransactionTemplate nested = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			nested.setPropagationBehavior(org.springframework.transaction.TransactionDefinition.PROPAGATION_NESTED);
			int scopes = count("outbox_state");

			outer.executeWithoutResult((status) -> {
				publisher.send("kept-before", new OrderPlaced(UUID.randomUUID(), 1));
				nested.executeWithoutResult((savepoint) -> {
					publisher.send("rolled-back", new OrderPlaced(UUID.randomUUID(), 2));
					publisher.scheduleSend("rolled-back", new OrderPlaced(UUID.randomUUID(), 3), java.time.Instant.now().plusSeconds(60),
							(o) -> {
							});
					savepoint.setRollbackOnly(); // rolls back to the savepoint, the outer transaction goes on
				});
				nested.executeWithoutResult((savepoint) -> publisher.send("kept-nested", new OrderPlaced(UUID.randomUUID(), 4)));
				publisher.send("kept-after", new OrderPlaced(UUID.randomUUID(), 5));
			});

			assertThat(messagesOfLatestScope()).extracting((m) -> m.get("destination"))
				.containsExactly("kept-before", "kept-nested", "kept-after");
			assertThat(count("outbox_state")).isEqualTo(scopes + 1);

			// The nested transaction published the transaction's first message: nothing is left.
			outer.executeWithoutResult((status) -> nested.executeWithoutResult((savepoint) -> {
				publisher.send("rolled-back", new OrderPlaced(UUID.randomUUID(), 6));
				savepoint.setRollbackOnly();
			}));
			assertThat(count("outbox_state")).isEqualTo(scopes + 1);
		});
	}

	@Test
	void aRequiresNewTransactionIsAScopeOfItsOwnThatSurvivesTheOuterRollback() {
		run((context) -> {
			int scopes = count("outbox_state");

			assertThatIllegalStateException().isThrownBy(() -> context.getBean(CheckoutService.class).auditThenFail("dee"));

			assertThat(count("outbox_state")).isEqualTo(scopes + 1);
			assertThat(messagesOfLatestScope()).extracting((m) -> m.get("destination")).containsExactly("audit");
		});
	}

	@Test
	void eightThreadsPublishingConcurrentlyLoseNothing() {
		run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			int scopesBefore = count("outbox_state");
			int messagesBefore = count("outbox_message");
			int threads = 8;
			int perThread = 40;
			CyclicBarrier start = new CyclicBarrier(threads);
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			List<Future<List<UUID>>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				results.add(pool.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					List<UUID> placed = new ArrayList<>();
					for (int i = 0; i < perThread; i++) {
						placed.add(orders.place("thread", 2));
					}
					return placed;
				}));
			}
			List<UUID> placed = new ArrayList<>();
			for (Future<List<UUID>> result : results) {
				placed.addAll(result.get(120, TimeUnit.SECONDS));
			}
			pool.shutdown();

			assertThat(placed).hasSize(threads * perThread).doesNotHaveDuplicates();
			assertThat(count("outbox_state")).isEqualTo(scopesBefore + threads * perThread);
			assertThat(count("outbox_message")).isEqualTo(messagesBefore + threads * perThread * 2);
			Map<UUID, List<String>> bodiesByScope = new java.util.LinkedHashMap<>();
			jdbc.query("SELECT outbox_id, body FROM " + schema.name() + ".outbox_message WHERE message_type = "
					+ "'test.order-placed' ORDER BY sequence_number", (java.sql.ResultSet row) -> {
						bodiesByScope.computeIfAbsent(row.getObject(1, UUID.class), (id) -> new ArrayList<>())
							.add(new String(row.getBytes(2), StandardCharsets.UTF_8));
					});
			for (UUID order : placed) {
				assertThat(bodiesByScope.values()).filteredOn((bodies) -> bodies.get(0).contains(order.toString()))
					.singleElement()
					.isEqualTo(List.of("{\"orderId\":\"" + order + "\",\"line\":1}", "{\"orderId\":\"" + order + "\",\"line\":2}"));
			}
		});
	}

	@Test
	void publishingWithoutATransactionFailsAndSaysHowToFixIt() {
		run((context) -> {
			int messages = count("outbox_message");
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);

			assertThatIllegalStateException().isThrownBy(() -> publisher.publish(new OrderPlaced(UUID.randomUUID(), 1)))
				.withMessageContaining("Cannot publish 'test.order-placed': no transaction is active")
				.withMessageContaining("@Outbox")
				.withMessageContaining("TransactionTemplate")
				.withMessageContaining("a call from another method of its own class (self-invocation)")
				.withMessageContaining("was committed on its own, without its messages");
			assertThat(count("outbox_message")).isEqualTo(messages);
		});
	}

	@Test
	void publishingInAReadOnlyTransactionFailsAndSaysHowToFixIt() {
		run((context) -> assertThatIllegalStateException()
			.isThrownBy(() -> context.getBean(ReportService.class).publishWhileReading())
			.withMessageContaining("the current transaction is read-only")
			.withMessageContaining("readOnly = true"));
	}

	@Test
	void aNullMessageIsRejected() {
		run((context) -> assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> inTransaction(context, (publisher) -> publisher.publish(null)))
			.withMessage("Cannot publish message: the message must not be null"));
	}

	@Test
	void aMessageTheSerializerCannotWriteIsRejectedNamingItsTypeAndCause() {
		run((context) -> assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> inTransaction(context, (publisher) -> publisher.publish(new Unserializable())))
			.withMessageStartingWith("Cannot publish message of type '" + Unserializable.class.getCanonicalName()
					+ "': the application/json serializer failed:")
			.withMessageContaining("no price yet")
			.satisfies((ex) -> assertThat(ex.getMessageType()).isEqualTo(Unserializable.class.getCanonicalName())));
	}

	@Test
	void aHeaderValueThatIsNotAStringNumberOrBooleanIsRejected() {
		run((context) -> assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> inTransaction(context,
					(publisher) -> publisher.publish(new OrderPlaced(UUID.randomUUID(), 1), (o) -> o.header("tags", List.of("a")))))
			.withMessageContaining("'test.order-placed'")
			.withMessageContaining("header 'tags' has a value of type java.util.ImmutableCollections$List12")
			.withMessageContaining("String, a Number or a Boolean"));
	}

	@Test
	void aBodyOverTheLimitIsRejectedNamingTheProperty() {
		runner.withPropertyValues("waybill.outbox.max-message-bytes=40B").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThatExceptionOfType(InvalidMessageException.class)
				.isThrownBy(() -> inTransaction(context, (publisher) -> publisher.publish(new OrderPlaced(UUID.randomUUID(), 1))))
				.withMessageContaining("'test.order-placed'")
				.withMessageContaining("over the limit of 40 bytes set by waybill.outbox.max-message-bytes");
		});
	}

	@Test
	void headersAreLimitedByWhatTheTransportSaysOneFrameCarries() {
		runner.withPropertyValues("waybill.outbox.relay.enabled=false")
			.withBean(Transport.class, () -> new FakeTransport() {

				@Override
				public long maxHeaderBytes() {
					return 600;
				}

			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThatExceptionOfType(InvalidMessageException.class)
					.isThrownBy(() -> inTransaction(context, (publisher) -> publisher
						.publish(new OrderPlaced(UUID.randomUUID(), 1), (o) -> o.header("note", "x".repeat(600)))))
					.withMessageContaining("'test.order-placed'")
					.withMessageContaining("over the 600 bytes one AMQP frame carries");
			});
	}

	@Test
	void aRejectedMessageIsNotWrittenWhenTheCallerCatchesTheExceptionAndCommits() {
		run((context) -> {
			UUID order = context.getBean(OrderService.class).placeWithOneBadMessage("eve");

			assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".orders WHERE id = ?", Integer.class, order)).isOne();
			assertThat(messagesOfLatestScope()).extracting((m) -> m.get("message_type")).containsExactly("test.order-placed");
		});
	}

	@Test
	void publishOptionsAndSendFillTheEnvelope() {
		run((context) -> {
			// PostgreSQL keeps microseconds
			inTransaction(context, (publisher) -> {
				publisher.publish(new OrderPlaced(UUID.randomUUID(), 1), (o) -> o.routingKey("eu.orders")
					.header("tenant", "acme").header("priority", 5).header("vip", true)
					.correlationId("request-7").conversationId("conversation-9"));
				publisher.send("billing-commands", new OrderPlaced(UUID.randomUUID(), 2));
			});

			List<Map<String, Object>> messages = messagesOfLatestScope();
			assertThat(messages.get(0)).containsEntry("routing_key", "eu.orders")
				.containsEntry("correlation_id", "request-7").containsEntry("conversation_id", "conversation-9");
			assertThat(jdbc.queryForObject("SELECT headers::text FROM " + schema.name() + ".outbox_message WHERE message_id = ?",
					String.class, messages.get(0).get("message_id")))
				.isEqualTo("{\"vip\": true, \"tenant\": \"acme\", \"priority\": 5}");
			assertThat(messages.get(0).get("not_before")).isNull();
			assertThat(messages.get(0).get("expires_at")).isNull();
			assertThat(messages.get(1)).containsEntry("destination", "billing-commands")
				.containsEntry("message_type", "test.order-placed");
		});
	}

	@Test
	void aScheduledMessageIsAScopeOfItsOwnAndHoldsBackNothingElse() {
		run((context) -> {
			// PostgreSQL keeps microseconds
			Instant notBefore = Instant.now().plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.MICROS);
			ScheduledMessage[] scheduled = new ScheduledMessage[1];
			UUID[] ids = new UUID[3];
			inTransaction(context, (publisher) -> {
				ids[0] = publisher.publish(new OrderPlaced(UUID.randomUUID(), 1));
				scheduled[0] = publisher.schedule(new OrderPlaced(UUID.randomUUID(), 2), notBefore);
				ids[1] = publisher.publish(new OrderPlaced(UUID.randomUUID(), 3), (o) -> o.notBefore(notBefore));
				ids[2] = publisher.publish(new OrderPlaced(UUID.randomUUID(), 4));
			});

			List<Map<String, Object>> scopes = jdbc.queryForList("SELECT s.id, s.next_attempt_at, s.message_count, "
					+ "array_agg(m.message_id ORDER BY m.sequence_number)::text AS ids FROM " + schema.name()
					+ ".outbox_state s JOIN " + schema.name() + ".outbox_message m ON m.outbox_id = s.id "
					+ "WHERE m.message_id IN (?, ?, ?, ?) GROUP BY s.id ORDER BY s.message_count DESC, s.created_at",
					ids[0], scheduled[0].messageId(), ids[1], ids[2]);
			assertThat(scopes).hasSize(3);
			assertThat(scopes.get(0)).containsEntry("message_count", 2);
			assertThat(((Timestamp) scopes.get(0).get("next_attempt_at")).toInstant())
				.as("the immediate messages are due at once").isBefore(notBefore.minus(Duration.ofHours(1)));
			assertThat(scopes.get(1)).containsEntry("id", scheduled[0].scheduleId());
			assertThat((String) scopes.get(1).get("ids")).contains(scheduled[0].messageId().toString());
			for (Map<String, Object> later : scopes.subList(1, 3)) {
				assertThat(later).containsEntry("message_count", 1);
				assertThat(((Timestamp) later.get("next_attempt_at")).toInstant()).isEqualTo(notBefore);
			}
			assertThat(scheduled[0].notBefore()).isEqualTo(notBefore);
		});
	}

	@Test
	void aScheduledMessageIsCancelledInTheCallersTransaction() {
		run((context) -> {
			Instant later = Instant.now().plus(Duration.ofHours(1));
			ScheduledMessage[] scheduled = new ScheduledMessage[1];
			inTransaction(context, (publisher) -> scheduled[0] = publisher.schedule(new OrderPlaced(UUID.randomUUID(), 1), later));
			UUID id = scheduled[0].scheduleId();

			// A rollback undoes the cancellation.
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			transactions.executeWithoutResult((status) -> {
				assertThat(publisher.cancel(scheduled[0])).isTrue();
				status.setRollbackOnly();
			});
			assertThat(statusOf(id)).isEqualTo("pending");

			assertThat(Boolean.TRUE.equals(transactions.execute((status) -> publisher.cancel(scheduled[0])))).isTrue();
			assertThat(statusOf(id)).isEqualTo("cancelled");
			assertThat(jdbc.queryForObject("SELECT completed_at IS NOT NULL FROM " + schema.name()
					+ ".outbox_state WHERE id = ?", Boolean.class, id)).isTrue();
			assertThat(Boolean.TRUE.equals(transactions.execute((status) -> publisher.cancel(id)))).as("cancelled already").isFalse();
			assertThat(Boolean.TRUE.equals(transactions.execute((status) -> publisher.cancel(UUID.randomUUID())))).as("unknown").isFalse();

			// Scheduled and cancelled in one transaction: nothing is written.
			int scopes = count("outbox_state");
			inTransaction(context, (p) -> assertThat(p.cancel(p.schedule(new OrderPlaced(UUID.randomUUID(), 2), later))).isTrue());
			assertThat(count("outbox_state")).isEqualTo(scopes);

			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> publisher.cancel(id))
				.withMessageContaining("no transaction is active");
		});
	}

	@Test
	void aPublishedOrLeasedScopeCannotBeCancelled() {
		run((context) -> {
			ScheduledMessage[] scheduled = new ScheduledMessage[2];
			inTransaction(context, (publisher) -> {
				scheduled[0] = publisher.schedule(new OrderPlaced(UUID.randomUUID(), 1), Instant.now().plusSeconds(3600));
				scheduled[1] = publisher.schedule(new OrderPlaced(UUID.randomUUID(), 2), Instant.now().plusSeconds(3600));
			});
			jdbc.update("UPDATE " + schema.name() + ".outbox_state SET status = 'published', published_at = now() "
					+ "WHERE id = ?", scheduled[0].scheduleId());
			jdbc.update("UPDATE " + schema.name() + ".outbox_state SET lease_owner = 'a-relay', "
					+ "lease_until = now() + interval '1 minute' WHERE id = ?", scheduled[1].scheduleId());
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			assertThat(Boolean.TRUE.equals(transactions.execute((status) -> publisher.cancel(scheduled[0])))).as("published").isFalse();
			assertThat(Boolean.TRUE.equals(transactions.execute((status) -> publisher.cancel(scheduled[1])))).as("leased").isFalse();
			assertThat(statusOf(scheduled[1].scheduleId())).isEqualTo("pending");
			jdbc.update("UPDATE " + schema.name() + ".outbox_state SET lease_until = now() - interval '1 second' "
					+ "WHERE id = ?", scheduled[1].scheduleId());
			assertThat(Boolean.TRUE.equals(transactions.execute((status) -> publisher.cancel(scheduled[1])))).as("lease expired").isTrue();
		});
	}

	@Test
	void aTimeToLiveSetsTheExpiryFromTheDueTimeInAScopeOfItsOwn() {
		run((context) -> {
			Instant before = Instant.now();
			Instant notBefore = before.plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MICROS);
			UUID[] ids = new UUID[3];
			inTransaction(context, (publisher) -> {
				ids[0] = publisher.publish(new OrderPlaced(UUID.randomUUID(), 1));
				ids[1] = publisher.publish(new OrderPlaced(UUID.randomUUID(), 2), (o) -> o.timeToLive(Duration.ofMinutes(5)));
				ids[2] = publisher.schedule(new OrderPlaced(UUID.randomUUID(), 3), notBefore,
						(o) -> o.timeToLive(Duration.ofMinutes(5))).messageId();
			});
			Instant after = Instant.now();
			assertThat(jdbc.queryForObject("SELECT count(DISTINCT outbox_id) FROM " + schema.name()
					+ ".outbox_message WHERE message_id IN (?, ?, ?)", Integer.class, ids[0], ids[1], ids[2])).isEqualTo(3);
			Instant expires = expiresAt(ids[1]);
			assertThat(expires).isBetween(before.plus(Duration.ofMinutes(5)).minusMillis(1),
					after.plus(Duration.ofMinutes(5)).plusMillis(1));
			assertThat(expiresAt(ids[2])).as("counted from the not-before time").isEqualTo(notBefore.plus(Duration.ofMinutes(5)));
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> new PublishOptions().timeToLive(Duration.ZERO));
		});
	}

	private static String statusOf(UUID scopeId) {
		return jdbc.queryForObject("SELECT status FROM " + schema.name() + ".outbox_state WHERE id = ?", String.class,
				scopeId);
	}

	private static Instant expiresAt(UUID messageId) {
		return jdbc.queryForObject("SELECT expires_at FROM " + schema.name() + ".outbox_message WHERE message_id = ?",
				Timestamp.class, messageId).toInstant();
	}

	@Test
	void aConsumerOutboxScopeRecordsTheInboundMessageAndConsumer() {
		run((context) -> {
			UUID inbound = UUID.randomUUID();
			inTransaction(context, (publisher) -> {
				context.getBean(dev.waybill.outbox.spi.ConsumerOutbox.class).bindInbound(inbound, "billing");
				publisher.publish(new CheckoutCompleted("kim", 1));
			});
			assertThat(latestScope()).containsEntry("inbound_message_id", inbound).containsEntry("consumer_id", "billing");
		});
	}

	@Test
	void theRelayIsWokenAfterEachCommitThatPublishedAndNotAfterARollback() {
		run((context) -> {
			RelayWakeUp wakeUp = context.getBean(RelayWakeUp.class);
			OrderService orders = context.getBean(OrderService.class);
			wakeUp.await(Duration.ZERO); // drop a signal an earlier publish may have left

			assertThatIllegalStateException().isThrownBy(() -> orders.placeAndFail("fay"));
			assertThat(wakeUp.await(Duration.ofMillis(200))).as("no signal after rollback").isFalse();

			orders.place("gus", 1);
			assertThat(wakeUp.await(Duration.ofSeconds(5))).as("signal after commit").isTrue();

			context.getBean(TransactionTemplate.class).executeWithoutResult((status) -> {
			});
			assertThat(wakeUp.await(Duration.ofMillis(200))).as("no signal for a commit that published nothing").isFalse();
		});
	}

	@Test
	void theApplicationsJsonMapperSerializesBodies() {
		runner.withBean(JsonMapper.class,
				() -> JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build())
			.run((context) -> {
				inTransaction(context, (publisher) -> publisher.publish(new CheckoutCompleted("hal", 42)));
				assertThat(messagesOfLatestScope()).extracting((m) -> body(m))
					.containsExactly("{\"customer_name\":\"hal\",\"item_count\":42}");
			});
	}

	@Test
	void aSerializerBeanReplacesJson() {
		runner.withBean(MessageSerializer.class, () -> new MessageSerializer() {
			@Override
			public String contentType() {
				return "text/plain";
			}

			@Override
			public byte[] serialize(Object message) {
				return message.toString().getBytes(StandardCharsets.UTF_8);
			}

			@Override
			public <T> T deserialize(byte[] body, Class<T> type) {
				throw new UnsupportedOperationException();
			}
		}).run((context) -> {
			inTransaction(context, (publisher) -> publisher.publish(new CheckoutCompleted("ivy", 1)));
			assertThat(messagesOfLatestScope()).singleElement().satisfies((m) -> {
				assertThat(m).containsEntry("content_type", "text/plain");
				assertThat(body(m)).isEqualTo("CheckoutCompleted[customerName=ivy, itemCount=1]");
			});
		});
	}

	private static void run(ContextTest test) {
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			test.run(context);
		});
	}

	private static void inTransaction(AssertableApplicationContext context, java.util.function.Consumer<OutboxPublisher> work) {
		OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
		context.getBean(TransactionTemplate.class).executeWithoutResult((status) -> work.accept(publisher));
	}

	private static int count(String table) {
		return jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + "." + table, Integer.class);
	}

	private static Map<String, Object> latestScope() {
		return jdbc.queryForMap("SELECT s.* FROM " + schema.name() + ".outbox_state s JOIN " + schema.name()
				+ ".outbox_message m ON m.outbox_id = s.id ORDER BY m.sequence_number DESC LIMIT 1");
	}

	private static List<Map<String, Object>> messagesOfLatestScope() {
		return jdbc.queryForList("SELECT * FROM " + schema.name() + ".outbox_message WHERE outbox_id = ? ORDER BY sequence_number",
				latestScope().get("id"));
	}

	private static String body(Map<String, Object> message) {
		return new String((byte[]) message.get("body"), StandardCharsets.UTF_8);
	}

	@FunctionalInterface
	interface ContextTest {

		void run(AssertableApplicationContext context) throws Exception;

	}

	@MessageType("test.order-placed")
	record OrderPlaced(UUID orderId, int line) {
	}

	@MessageType("test.checkout-completed")
	record CheckoutCompleted(String customerName, int itemCount) {
	}

	record Shipped(String parcel) {
	}

	static class Unserializable {

		public int getPrice() {
			throw new IllegalStateException("no price yet");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		@Bean
		OrderService orderService(JdbcTemplate jdbc, OutboxPublisher publisher) {
			return new OrderService(jdbc, publisher);
		}

		@Bean
		CheckoutService checkoutService(OrderService orders, AuditService audit, OutboxPublisher publisher) {
			return new CheckoutService(orders, audit, publisher);
		}

		@Bean
		AuditService auditService(OutboxPublisher publisher) {
			return new AuditService(publisher);
		}

		@Bean
		ClassLevelService classLevelService(OutboxPublisher publisher) {
			return new ClassLevelService(publisher);
		}

		@Bean
		ReportService reportService(OutboxPublisher publisher) {
			return new ReportService(publisher);
		}

		@Bean
		TransactionTemplate transactionTemplate(PlatformTransactionManager transactionManager) {
			return new TransactionTemplate(transactionManager);
		}

	}

	static class OrderService {

		private final JdbcTemplate jdbc;

		private final OutboxPublisher publisher;

		OrderService(JdbcTemplate jdbc, OutboxPublisher publisher) {
			this.jdbc = jdbc;
			this.publisher = publisher;
		}

		@Outbox
		public UUID place(String customer, int lines) {
			UUID id = UUID.randomUUID();
			this.jdbc.update("INSERT INTO " + schema.name() + ".orders (id, customer, total) VALUES (?, ?, ?)", id, customer, lines);
			for (int line = 1; line <= lines; line++) {
				this.publisher.publish(new OrderPlaced(id, line));
			}
			return id;
		}

		@Outbox
		public void placeAndFail(String customer) {
			place(customer, 2);
			throw new IllegalStateException("payment declined");
		}

		@Outbox
		public UUID placeWithOneBadMessage(String customer) {
			UUID id = place(customer, 1);
			try {
				this.publisher.publish(new Unserializable());
			}
			catch (InvalidMessageException ex) {
				// the order stands without the message that could not be written
			}
			return id;
		}

	}

	static class CheckoutService {

		private final OrderService orders;

		private final AuditService audit;

		private final OutboxPublisher publisher;

		CheckoutService(OrderService orders, AuditService audit, OutboxPublisher publisher) {
			this.orders = orders;
			this.audit = audit;
			this.publisher = publisher;
		}

		@Outbox
		public void checkout(String customer) {
			this.orders.place(customer, 3);
			this.publisher.publish(new CheckoutCompleted(customer, 3));
		}

		@Outbox
		public void auditThenFail(String customer) {
			this.publisher.publish(new CheckoutCompleted(customer, 1));
			this.audit.record(customer);
			throw new IllegalStateException("checkout failed after the audit");
		}

	}

	static class AuditService {

		private final OutboxPublisher publisher;

		AuditService(OutboxPublisher publisher) {
			this.publisher = publisher;
		}

		@Transactional(propagation = Propagation.REQUIRES_NEW)
		public void record(String customer) {
			this.publisher.send("audit", new CheckoutCompleted(customer, 0));
		}

	}

	@Outbox
	static class ClassLevelService {

		private final OutboxPublisher publisher;

		ClassLevelService(OutboxPublisher publisher) {
			this.publisher = publisher;
		}

		public void notifyShipped(String parcel) {
			this.publisher.publish(new Shipped(parcel));
		}

	}

	static class ReportService {

		private final OutboxPublisher publisher;

		ReportService(OutboxPublisher publisher) {
			this.publisher = publisher;
		}

		@Transactional(readOnly = true)
		public void publishWhileReading() {
			this.publisher.publish(new CheckoutCompleted("reader", 0));
		}

	}

}
