package dev.waybill.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import dev.waybill.console.ConsoleTestApp.Order;
import dev.waybill.console.ConsoleTestApp.TenantUnroutable;
import dev.waybill.console.ConsoleTestApp.Unroutable;

/**
 * The console page in a real browser (headless Chromium driven by Selenium) against a running
 * application with real PostgreSQL and RabbitMQ: the page shows a dead scope and an error-queue
 * message the test made happen, the lookup finds the faulted message, redriving the message from
 * the page runs its handler and the page shows it gone, and so for the dead scope. It keeps a
 * screenshot of the page in {@code target/console.png}, and in {@code docs/console.png} (the README's)
 * with {@code WAYBILL_UPDATE_SCREENSHOT=true}.
 * <p>
 * Skipped, with the reason, only where Chromium is missing and cannot be installed (see
 * {@link Chromium}); under CI ({@code CI=true}, or {@code WAYBILL_REQUIRE_BROWSER=true} as {@code .ci/run}
 * sets) that fails instead.
 */
class ConsoleBrowserTests {

	private static ConsoleTestApp app;

	private static WebDriver browser;

	@BeforeAll
	static void start() {
		Chromium.Found found = Chromium.find();
		if (found.chromium() == null) {
			if ("true".equalsIgnoreCase(System.getenv("CI"))
					|| "true".equalsIgnoreCase(System.getenv("WAYBILL_REQUIRE_BROWSER"))) {
				throw new IllegalStateException(found.problem());
			}
			Assumptions.abort(found.problem());
		}
		app = ConsoleTestApp.start("browser", true);
		ChromeOptions options = new ChromeOptions();
		options.setBinary(found.chromium().browser().toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
				"--window-size=1400,1300");
		ChromeDriverService service = new ChromeDriverService.Builder()
			.usingDriverExecutable(found.chromium().driver().toFile())
			.usingAnyFreePort()
			.build();
		browser = new ChromeDriver(service, options);
	}

	@AfterAll
	static void stop() throws Exception {
		try {
			if (browser != null) {
				browser.quit();
			}
		}
		finally {
			if (app != null) {
				app.close();
			}
		}
	}

	@BeforeEach
	void reset() throws Exception {
		app.reset();
	}

	@Test
	void thePageShowsTheReasonTheEndpointGivesForABadRequest() {
		browser.get(app.baseUrl() + "/waybill");
		waitFor(By.cssSelector("#error-queue-list tr[data-queue]"));

		browser.findElement(By.id("lookup-id")).sendKeys("not-a-uuid");
		browser.findElement(By.cssSelector("#lookup-form button")).click();

		WebElement empty = waitFor(By.id("lookup-empty"));
		new WebDriverWait(browser, Duration.ofSeconds(30)).until((driver) -> !empty.getText().isBlank());
		assertThat(empty.getText()).contains("'not-a-uuid' is not a UUID").doesNotContain("Bad Request");
	}

	@Test
	void anActionThatFoundNothingStaysShownAsAWarningAcrossRefreshes() throws Exception {
		UUID message = app.publish(new Order("o-43", "pay"));
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> app.depth(app.errorQueue()) == 1);
		browser.get(app.baseUrl() + "/waybill");
		// Off before the row is found: a refresh (every 5 s) renders the rows anew, and one that came
		// between finding the row and turning them off left the test holding a detached element.
		browser.findElement(By.id("auto-refresh")).click(); // the row stays on the page, stale
		WebElement staleRow = waitFor(By.cssSelector("#error-messages tr[data-message-id='" + message + "']"));
		// another operator discards it meanwhile
		Http http = new Http(app.baseUrl() + "/actuator/waybill");
		assertThat(http.post("/error-queues/discard", "{\"queue\": \"" + app.queue + "\", \"ids\": \"" + message + "\"}")
			.json().get("messages")).hasSize(1);

		staleRow.findElement(By.cssSelector("button.redrive")).click();

		WebElement result = waitFor(By.cssSelector("#result[data-level='warning']"));
		String warning = result.getText();
		assertThat(warning).contains("0 of 1 message").contains(message.toString()).contains("try again");
		browser.findElement(By.id("auto-refresh")).click();
		String refreshed = browser.findElement(By.tagName("body")).getDomAttribute("data-refreshed");
		new WebDriverWait(browser, Duration.ofSeconds(30)).until((driver) -> !String.valueOf(refreshed)
			.equals(driver.findElement(By.tagName("body")).getDomAttribute("data-refreshed")));
		assertThat(browser.findElement(By.id("status")).getText()).startsWith("Updated");
		assertThat(browser.findElement(By.id("result")).isDisplayed()).isTrue();
		assertThat(browser.findElement(By.id("result")).getText()).isEqualTo(warning);
	}

	@Test
	void anErrorQueueHoldingMoreThanThePageShowsSaysHowManyMore() throws Exception {
		for (int i = 0; i < 23; i++) {
			app.putInErrorQueue(UUID.randomUUID());
		}
		browser.get(app.baseUrl() + "/waybill");

		assertThat(textOf(By.cssSelector("#error-messages tr[data-more='" + app.queue + "']")))
			.isEqualTo("3 more in " + app.queue + " not shown.");
		assertThat(browser.findElements(By.cssSelector("#error-messages tr[data-message-id]"))).hasSize(20);
	}

	@Test
	void anotherStoresDeadScopeIsShownAndRedrivenOnceThatStoreIsChosen() throws Exception {
		app.publishTo(ConsoleTestApp.TENANT, new TenantUnroutable("a tenant's, no queue bound"));
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> app.tenantDeadScopes().size() == 1);
		UUID scope = app.tenantDeadScopes().get(0);
		browser.get(app.baseUrl() + "/waybill");
		waitFor(By.cssSelector("#error-queue-list tr[data-queue]"));
		assertThat(browser.findElement(By.id("store-choice")).isDisplayed()).isTrue();
		assertThat(browser.findElements(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "']")))
			.as("the default store's page").isEmpty();

		new Select(browser.findElement(By.id("store"))).selectByValue(ConsoleTestApp.TENANT);

		assertThat(textOf(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "']")))
			.contains(ConsoleTestApp.TENANT_UNROUTABLE_TYPE).contains("unroutable");
		String catchAll = app.bindQueueTo(ConsoleTestApp.TENANT_UNROUTABLE_TYPE);
		click(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "'] button.redrive"));
		waitUntilGone(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "']"));
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> app.depth(catchAll) == 1);
		assertThat(app.tenantDeadScopes()).isEmpty();
	}

	@Test
	void thePageShowsWhatWentWrongAndRedrivesIt() throws Exception {
		UUID message = app.publish(new Order("o-42", "pay"));
		app.publish(new Unroutable("no queue bound"));
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> app.depth(app.errorQueue()) == 1
				&& app.deadScopes().size() == 1);
		UUID scope = app.deadScopes().get(0);

		browser.get(app.baseUrl() + "/waybill");

		// The page renders its tables anew every 5 s (auto-refresh is on here, as the screenshot shows
		// it): rows are found again at each use, not kept across the lookup and the screenshot.
		By faultRow = By.cssSelector("#error-messages tr[data-message-id='" + message + "']");
		assertThat(textOf(faultRow)).contains("card declined for order o-42").contains(app.queue);
		assertThat(textOf(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "']")))
			.contains(ConsoleTestApp.UNROUTABLE_TYPE).contains("unroutable");
		assertThat(browser.findElement(By.id("dead-count")).getText()).isEqualTo("1");
		assertThat(browser.findElement(By.id("error-count")).getText()).isEqualTo("1");
		assertThat(browser.findElement(By.id("mode")).getText()).isEqualTo("writes enabled");

		browser.findElement(By.id("lookup-id")).sendKeys(message.toString());
		browser.findElement(By.cssSelector("#lookup-form button")).click();
		waitFor(By.cssSelector("#lookup-result tr[data-consumer='" + app.queue + "'][data-state='faulted']"));
		screenshot();

		ConsoleTestApp.failing.set(false);
		click(By.cssSelector("#error-messages tr[data-message-id='" + message + "'] button.redrive"));

		Awaitility.await().atMost(Duration.ofSeconds(30))
			.until(() -> ConsoleTestApp.handled.stream().filter(message.toString()::equals).count() == 2);
		waitUntilGone(By.cssSelector("#error-messages tr[data-message-id='" + message + "']"));
		assertThat(app.depth(app.errorQueue())).isZero();
		browser.findElement(By.cssSelector("#lookup-form button")).click();
		waitFor(By.cssSelector("#lookup-result tr[data-consumer='" + app.queue + "'][data-state='processed']"));

		String catchAll = app.bindQueueToUnroutable();
		click(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "'] button.redrive"));
		waitUntilGone(By.cssSelector("#dead-scopes tr[data-scope-id='" + scope + "']"));
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> app.depth(catchAll) == 1);
		assertThat(app.deadScopes()).isEmpty();
	}

	private static WebElement waitFor(By selector) {
		return new WebDriverWait(browser, Duration.ofSeconds(30)).until(ExpectedConditions.presenceOfElementLocated(selector));
	}

	/** The text of the element, found again should a refresh have rendered it anew meanwhile. */
	private static String textOf(By selector) {
		return new WebDriverWait(browser, Duration.ofSeconds(30)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(selector).getText());
	}

	/** Clicks the element, found again should a refresh have rendered it anew meanwhile. */
	private static void click(By selector) {
		new WebDriverWait(browser, Duration.ofSeconds(30)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> {
				driver.findElement(selector).click();
				return true;
			});
	}

	private static void waitUntilGone(By selector) {
		new WebDriverWait(browser, Duration.ofSeconds(30)).until((driver) -> driver.findElements(selector).isEmpty());
	}

	/** Keeps the page as it shows the faults, for the README. */
	private static void screenshot() throws Exception {
		Path png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
		Files.copy(png, Path.of("target", "console.png"), StandardCopyOption.REPLACE_EXISTING);
		if ("true".equalsIgnoreCase(System.getenv("WAYBILL_UPDATE_SCREENSHOT"))) {
			Path docs = Path.of("").toAbsolutePath().getParent().resolve("docs");
			Files.createDirectories(docs);
			Files.copy(png, docs.resolve("console.png"), StandardCopyOption.REPLACE_EXISTING);
		}
	}

}
