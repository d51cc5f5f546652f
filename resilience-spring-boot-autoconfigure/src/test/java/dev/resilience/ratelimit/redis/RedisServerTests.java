package dev.resilience.ratelimit.redis;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The binary a machine without {@code redis-server} falls back on. */
class RedisServerTests {

	@Test
	void embeddedBinaryServesRedisWithoutOneOnThePath() {
		Path binary = Path.of(RedisServer.embeddedExecutable());
		assertThat(Files.isExecutable(binary)).isTrue();
		// extracted by embedded-redis, not found on the PATH
		assertThat(System.getenv("PATH").split(File.pathSeparator)).noneMatch((dir) -> binary.startsWith(dir));
		try (RedisServer server = RedisServer.start(binary.toString())) {
			assertThat(server.commands().ping()).isEqualTo("PONG");
			assertThat(server.commands().info("server")).contains("executable:" + binary);
		}
	}

	@Test
	void embeddedBinaryIsExtractedOncePerJvm() {
		assertThat(RedisServer.embeddedExecutable()).isEqualTo(RedisServer.embeddedExecutable());
	}

}
